"""``python -m ember.demo``: train the digits network, report, save the weights and a plot."""
import argparse
import os
import time

import ember
from ember import nn
from ember.utils.data import DataLoader, TensorDataset, random_split

from . import load_digits
from .model import DigitsNet
from .progress import progress


def parse_args(argv=None):
    """The command line: epochs, seed, output folder, and the training knobs."""
    p = argparse.ArgumentParser(
        prog='python -m ember.demo',
        description='Train a small convolutional network on the 8x8 handwritten digits that '
                    'ship with ember, printing the train loss and test accuracy per epoch.')
    p.add_argument('--epochs', type=int, default=15, help='passes over the training set '
                   '(default: %(default)s)')
    p.add_argument('--seed', type=int, default=0, help='seed of the split, the initial '
                   'weights and the shuffling (default: %(default)s)')
    p.add_argument('--out', default='out', help='folder for the weights (digits_cnn.pt) and '
                   'the plot (training.png) (default: %(default)s)')
    p.add_argument('--batch-size', type=int, default=32, help='(default: %(default)s)')
    p.add_argument('--lr', type=float, default=2e-3, help='Adam learning rate (default: '
                   '%(default)s)')
    p.add_argument('--test-fraction', type=float, default=0.2, help='share of the images '
                   'held out for testing (default: %(default)s)')
    p.add_argument('--threads', type=int, default=1, help='BLAS threads for training '
                   '(default: %(default)s, so that a seed gives the same numbers on every '
                   'machine: OpenBLAS sums in another order when it splits a product over '
                   'more threads, which moves the last digits of the weights and can move '
                   'the accuracy by a test image)')
    args = p.parse_args(argv)
    if args.epochs < 1:
        p.error(f'--epochs must be at least 1, not {args.epochs}')
    if args.batch_size < 1:
        p.error(f'--batch-size must be at least 1, not {args.batch_size}')
    if not args.lr > 0:
        p.error(f'--lr must be positive, not {args.lr}')
    if not 0 < args.test_fraction < 1:
        p.error(f'--test-fraction must lie strictly between 0 and 1, not {args.test_fraction}')
    if args.threads < 1:
        p.error(f'--threads must be at least 1, not {args.threads}')
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        p.error(f'--out must name a folder, but {args.out!r} is an existing file')
    return args


def evaluate(model, loader):
    """Accuracy of ``model`` over ``loader``, in [0, 1]."""
    model.eval()
    correct = total = 0
    with ember.no_grad():
        for images, labels in loader:
            correct += int((model(images).argmax(1) == labels).sum())
            total += len(labels)
    model.train()
    return correct / total


def train(args, log=print):
    """Trains as ``args`` says; returns the model and the history (per-epoch train loss and
    test accuracy)."""
    ember.manual_seed(args.seed)
    images, labels = load_digits()
    dataset = TensorDataset(images, labels)
    n_test = round(len(dataset) * args.test_fraction)
    split = ember.Generator().manual_seed(args.seed)
    train_set, test_set = random_split(dataset, [len(dataset) - n_test, n_test],
                                       generator=split)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                              generator=ember.Generator().manual_seed(args.seed))
    test_loader = DataLoader(test_set, batch_size=256)

    model = DigitsNet()
    optimizer = ember.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = ember.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    loss_fn = nn.CrossEntropyLoss()
    log(f'{len(train_set)} training and {len(test_set)} test images; '
        f'{sum(p.numel() for p in model.parameters()):,} parameters')

    history = {'loss': [], 'accuracy': []}
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        total_loss = 0.0
        bar = progress(train_loader, len(train_loader), f'epoch {epoch}/{args.epochs}')
        for batch, targets in bar:
            optimizer.zero_grad()
            loss = loss_fn(model(batch), targets)
            loss.backward()
            optimizer.step()
            total_loss += loss.item() * len(targets)
        scheduler.step()
        history['loss'].append(total_loss / len(train_set))
        history['accuracy'].append(evaluate(model, test_loader))
        log(f'epoch {epoch:>2}/{args.epochs}  train loss {history["loss"][-1]:.4f}  '
            f'test accuracy {100 * history["accuracy"][-1]:.2f}%  '
            f'({time.perf_counter() - start:.1f} s)')
    return model, history


def save_plot(history, path):
    """Loss and accuracy per epoch as a PNG; returns False when matplotlib is missing."""
    try:
        import matplotlib
        matplotlib.use('Agg')
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    epochs = range(1, len(history['loss']) + 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(epochs, history['loss'], marker='o')
    left.set(title='train loss', xlabel='epoch')
    right.plot(epochs, [100 * a for a in history['accuracy']], marker='o', color='tab:green')
    right.set(title='test accuracy (%)', xlabel='epoch')
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return True


def main(argv=None):
    """Runs the demo; returns the final test accuracy."""
    args = parse_args(argv)
    start = time.perf_counter()
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=args.threads, user_api='blas'):
        model, history = train(args)
    os.makedirs(args.out, exist_ok=True)
    weights = os.path.join(args.out, 'digits_cnn.pt')
    ember.save(model.state_dict(), weights)
    print(f'final test accuracy {100 * history["accuracy"][-1]:.2f}% in '
          f'{time.perf_counter() - start:.1f} s; weights saved to {weights}')
    plot = os.path.join(args.out, 'training.png')
    if save_plot(history, plot):
        print(f'plot of loss and accuracy saved to {plot}')
    else:
        print('matplotlib is not installed: no plot (pip install "ember[demo]")')
    return history['accuracy'][-1]


if __name__ == '__main__':
    main()
