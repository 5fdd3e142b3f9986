"""SummaryWriter: torch's logging API over tensorboard's event files."""
import datetime
import os
import socket
import time

import numpy as np
from tensorboard.compat.proto.event_pb2 import Event, SessionLog
from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData
from tensorboard.summary.writer.event_file_writer import EventFileWriter

__all__ = ['SummaryWriter']


def _number(value):
    """A Python float from a number, 0-d/1-element tensor or NumPy scalar."""
    data = getattr(value, '_data', value)
    return float(np.asarray(data).reshape(()))


def _array(values):
    data = getattr(values, '_data', values)
    return np.asarray(data, dtype=np.float64).reshape(-1)


def _tensorflow_bins():
    """TensorFlow's histogram edges: +-1e-12 growing by 10% up to 1e20, and 0."""
    edges, v = [], 1e-12
    while v < 1e20:
        edges.append(v)
        v *= 1.1
    return [-e for e in reversed(edges)] + [0] + edges


def _histogram(values, bins, max_bins):
    """The histogram proto TensorBoard draws: only the bins between the first and last
    non-empty ones (plus the empty bin before, whose edge opens the range)."""
    values = _array(values)
    if values.size == 0:
        raise ValueError('The input has no element.')
    counts, limits = np.histogram(values, bins=_tensorflow_bins() if bins == 'tensorflow'
                                  else bins)
    if max_bins is not None and len(counts) > max_bins:
        # merge groups of len // max_bins bins (the last group padded with empty ones)
        group = len(counts) // max_bins
        pad = group - len(counts) % group if len(counts) % group else 0
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(axis=-1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    filled = np.nonzero(counts)[0]
    first, last = int(filled[0]), int(filled[-1])
    if first > 0:
        counts, limits = counts[first - 1:last + 1], limits[first:last + 2]
    else:
        counts, limits = np.concatenate([[0], counts[:last + 1]]), limits[:last + 2]
    return HistogramProto(min=values.min(), max=values.max(), num=len(values),
                          sum=values.sum(), sum_squares=values.dot(values),
                          bucket_limit=limits.tolist(), bucket=counts.tolist())


class _FileWriter:
    """One event file: adds summaries stamped with step and wall time."""

    def __init__(self, log_dir, max_queue, flush_secs, filename_suffix):
        self._writer = EventFileWriter(log_dir, max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self._writer.get_logdir()

    def add_summary(self, summary, step, walltime):
        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if step is not None:
            event.step = int(step)
        self._writer.add_event(event)

    def flush(self):
        self._writer.flush()

    def close(self):
        self._writer.close()


class SummaryWriter:
    """Writes TensorBoard event files under ``log_dir`` (default
    ``runs/<date>_<host><comment>``).

    >>> w = SummaryWriter(log_dir)  # doctest: +SKIP
    >>> w.add_scalar('loss', 0.5, global_step=1)  # doctest: +SKIP
    """

    def __init__(self, log_dir=None, comment='', purge_step=None, max_queue=10, flush_secs=120,
                 filename_suffix=''):
        if not log_dir:
            stamp = datetime.datetime.now().strftime('%b%d_%H-%M-%S')
            log_dir = os.path.join('runs', stamp + '_' + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue, self.flush_secs = max_queue, flush_secs
        self.filename_suffix = filename_suffix
        self._main = None
        self._scalar_writers = {}
        self._file_writer()

    def _file_writer(self):
        if self._main is None:
            self._main = _FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                     self.filename_suffix)
            if self.purge_step is not None:
                # a restart marker: TensorBoard discards the events logged at this step or
                # later by an earlier run of the same log directory
                self._main._writer.add_event(Event(step=self.purge_step,
                                                   file_version='brain.Event:2'))
                self._main._writer.add_event(Event(step=self.purge_step, session_log=SessionLog(
                    status=SessionLog.START)))
                self.purge_step = None
        return self._main

    def get_logdir(self):
        """The directory the event files go to."""
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """Logs one number (a float, or a one-element tensor) under ``tag``."""
        if new_style:
            raise NotImplementedError('add_scalar(new_style=True) is not supported by ember')
        summary = Summary(value=[Summary.Value(tag=tag, simple_value=_number(scalar_value))])
        self._file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Logs several numbers in one chart: each key goes to its own run directory
        ``<log_dir>/<main_tag>_<key>``, all under the tag ``main_tag``."""
        walltime = time.time() if walltime is None else walltime
        base = self._file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = base + '/' + main_tag.replace('/', '_') + '_' + tag
            writer = self._scalar_writers.get(path)
            if writer is None:
                writer = self._scalar_writers[path] = _FileWriter(
                    path, self.max_queue, self.flush_secs, self.filename_suffix)
            summary = Summary(value=[Summary.Value(tag=main_tag, simple_value=_number(value))])
            writer.add_summary(summary, global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins='tensorflow', walltime=None,
                      max_bins=None):
        """Logs the distribution of ``values`` (``bins``: 'tensorflow', a NumPy bin rule
        such as 'auto', a count, or the edges)."""
        summary = Summary(value=[Summary.Value(tag=tag, histo=_histogram(values, bins,
                                                                         max_bins))])
        self._file_writer().add_summary(summary, global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """Logs a (Markdown) string, shown in TensorBoard's Text tab."""
        plugin = SummaryMetadata.PluginData(plugin_name='text',
                                            content=TextPluginData(version=0)
                                            .SerializeToString())
        tensor = TensorProto(dtype='DT_STRING', string_val=[text_string.encode('utf_8')],
                             tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
        summary = Summary(value=[Summary.Value(tag=tag + '/text_summary',
                                               metadata=SummaryMetadata(plugin_data=plugin),
                                               tensor=tensor)])
        self._file_writer().add_summary(summary, global_step, walltime)

    def _unsupported(self, name):
        raise NotImplementedError(f'SummaryWriter.{name} is not supported by ember yet '
                                  '(scalars, histograms and text are)')

    def add_image(self, *args, **kwargs):
        """Not supported yet."""
        self._unsupported('add_image')

    def add_images(self, *args, **kwargs):
        """Not supported yet."""
        self._unsupported('add_images')

    def add_figure(self, *args, **kwargs):
        """Not supported yet."""
        self._unsupported('add_figure')

    def add_graph(self, *args, **kwargs):
        """Not supported: ember has no graph tracing to draw."""
        self._unsupported('add_graph')

    def add_hparams(self, *args, **kwargs):
        """Not supported yet."""
        self._unsupported('add_hparams')

    def add_embedding(self, *args, **kwargs):
        """Not supported yet."""
        self._unsupported('add_embedding')

    def flush(self):
        """Writes pending events to disk."""
        for writer in [self._main, *self._scalar_writers.values()]:
            if writer is not None:
                writer.flush()

    def close(self):
        """Flushes and closes every event file."""
        for writer in [self._main, *self._scalar_writers.values()]:
            if writer is not None:
                writer.flush()
                writer.close()
        self._main = None
        self._scalar_writers = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
