"""addcdiv refuses integer (and bool) division as torch 2.13 does; one floating operand
makes it a true division."""
import numpy as np
import pytest

from .oracle import check

INT = np.array([3, 4], dtype=np.int64)
FLOAT = np.array([1.5, 2.0])


@pytest.mark.parametrize('t1,t2', [(INT, INT), (INT, np.array([True, True])),
                                   (INT, FLOAT), (FLOAT, INT)],
                         ids=['int-int', 'int-bool', 'int-float', 'float-int'])
def test_addcdiv_operand_dtypes(t1, t2):
    check(lambda T, x, a, b: T.addcdiv(x, a, b, value=2), FLOAT, t1, t2, match_message=True,
          grad=False)
    check(lambda T, x, a, b: x.clone().addcdiv_(a, b), FLOAT, t1, t2, match_message=True,
          grad=False)
