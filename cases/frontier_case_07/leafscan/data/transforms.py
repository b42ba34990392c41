"""Pipeline stages. Static stages (fitted once on the training split) turn reflectance spectra into
features; augmentation stages perturb training batches and pass everything through untouched
when switched to eval."""

import torch


class Stage:
    """A pipeline stage; like nn.Module it has a training flag that ``train()``/``eval()`` set."""

    training = True

    def train(self, mode=True):
        self.training = mode
        return self

    def eval(self):
        return self.train(False)

    def fit(self, x):
        return self

    def state_dict(self):
        return {}

    def load_state_dict(self, state):
        pass

    def __call__(self, x, generator=None):
        raise NotImplementedError


class LogReflectance(Stage):
    """Reflectance -> log reflectance; the classifier sees multiplicative effects (lamps, vigour) as offsets."""

    def __init__(self, floor=1e-6):
        self.floor = floor

    def __call__(self, x, generator=None):
        return 2.0 * torch.log(x.clamp_min(self.floor))


class NormalizeBrightness(Stage):
    """Divides each scan by its overall brightness (the geometric mean over its bands; on log
    reflectance, subtracts the scan's mean), so lamp intensity, exposure and leaf distance cancel and
    every scan keeps only its spectral shape."""

    def __call__(self, x, generator=None):
        return x - x.mean(dim=-1, keepdim=True)


class Standardize(Stage):
    """Per-band standardization with statistics of the training split."""

    def __init__(self):
        self.mean = self.std = None

    def fit(self, x):
        self.mean, self.std = x.mean(dim=0), x.std(dim=0).clamp_min(1e-6)
        return self

    def state_dict(self):
        return {"mean": self.mean, "std": self.std}

    def load_state_dict(self, state):
        self.mean, self.std = state["mean"], state["std"]

    def __call__(self, x, generator=None):
        if self.mean is None:
            raise RuntimeError("Standardize used before fit()")
        return (x - self.mean) / self.std


class Jitter(Stage):
    """Multiplicative gain noise per value, training only."""

    def __init__(self, sigma):
        self.sigma = sigma

    def __call__(self, x, generator=None):
        if not self.training or self.sigma <= 0:
            return x
        return x * (1.0 + self.sigma * torch.randn(x.shape, generator=generator))


class BandMask(Stage):
    """Zeroes each band of a scan with probability p (SpecAugment-style), training only."""

    def __init__(self, p):
        self.p = p

    def __call__(self, x, generator=None):
        if not self.training or self.p <= 0:
            return x
        keep = torch.rand(x.shape, generator=generator) >= self.p
        return x * keep


class Compose(Stage):
    def __init__(self, stages):
        self.stages = list(stages)

    def train(self, mode=True):
        for stage in self.stages:
            stage.train(mode)
        return super().train(mode)

    def fit(self, x):
        for stage in self.stages:
            stage.fit(x)
            x = stage(x)
        return self

    def state_dict(self):
        return {f"{i}.{k}": v for i, s in enumerate(self.stages) for k, v in s.state_dict().items()}

    def load_state_dict(self, state):
        for i, stage in enumerate(self.stages):
            prefix = f"{i}."
            own = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
            if own:
                stage.load_state_dict(own)

    def __call__(self, x, generator=None):
        for stage in self.stages:
            x = stage(x, generator)
        return x

    def __len__(self):
        return len(self.stages)
