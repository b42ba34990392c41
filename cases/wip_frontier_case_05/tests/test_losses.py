import pytest
import torch

from losses import LOSSES, build_loss


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_is_zero_at_the_target_and_positive_elsewhere(name):
    fn = build_loss(name)
    z = torch.tensor([0.0, 0.2, 0.5])
    assert float(fn(z.clone(), z)) == 0.0
    assert float(fn(z + 0.1, z)) > 0.0


def test_unknown_loss_is_an_error():
    with pytest.raises(KeyError):
        build_loss("mape")
