import torch

from losses import per_row_deviance, poisson_deviance, tweedie_deviance


def test_deviance_is_zero_at_the_target():
    y = torch.tensor([0.5, 3.0, 40.0])
    assert poisson_deviance(y.clone(), y).abs() < 1e-6
    assert tweedie_deviance(y.clone(), y).abs() < 1e-5


def test_closed_hours_cost_twice_the_forecast():
    mu = torch.tensor([2.0, 0.5, 7.0], requires_grad=True)
    y = torch.zeros(3)
    loss = poisson_deviance(mu, y)
    assert torch.isfinite(loss) and torch.allclose(loss, 2 * mu.mean())
    assert torch.allclose(per_row_deviance(mu, y), 2 * mu)
    loss.backward()
    assert mu.grad is not None


def test_gradient_matches_finite_differences():
    torch.manual_seed(0)
    mu = (torch.rand(8, dtype=torch.float64) * 20 + 0.5).requires_grad_()
    y = torch.rand(8, dtype=torch.float64) * 30 + 0.1
    assert torch.autograd.gradcheck(lambda m: poisson_deviance(m, y), (mu,))
