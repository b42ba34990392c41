"""Pipeline stages. Static stages (fitted once on the training split) turn reflectance spectra
into features; augmentation stages perturb training batches and pass everything through untouched
when switched to eval. ``groups`` (instrument ids, one per scan) reaches every stage; most ignore it."""

import torch


class Stage:
    """A pipeline stage; like nn.Module it has a training flag that ``train()``/``eval()`` set."""

    training = True

    def train(self, mode=True):
        self.training = mode
        return self

    def eval(self):
        return self.train(False)

    def fit(self, x, groups=None):
        return self

    def state_dict(self):
        return {}

    def load_state_dict(self, state):
        pass

    def __call__(self, x, generator=None, groups=None):
        raise NotImplementedError


class Absorbance(Stage):
    """Reflectance -> absorbance, -log10 R: band depths add up instead of multiplying. Values are
    kept within the bench detectors' linear range, ``max_absorbance``."""

    def __init__(self, floor=1e-6, max_absorbance=0.6):
        self.floor, self.max_absorbance = floor, max_absorbance

    def __call__(self, x, generator=None, groups=None):
        return (-torch.log10(x.clamp_min(self.floor))).clamp_max(self.max_absorbance)


class Standardize(Stage):
    """Per-wavelength standardization with statistics of the training split."""

    def __init__(self):
        self.mean = self.std = None

    def fit(self, x, groups=None):
        self.mean, self.std = x.mean(dim=0), x.std(dim=0).clamp_min(1e-6)
        return self

    def state_dict(self):
        return {"mean": self.mean, "std": self.std}

    def load_state_dict(self, state):
        self.mean, self.std = state["mean"], state["std"]

    def __call__(self, x, generator=None, groups=None):
        if self.mean is None:
            raise RuntimeError("Standardize used before fit()")
        return (x - self.mean) / self.std


class InstrumentBaseline(Stage):
    """Removes each instrument's own baseline: the mean training spectrum of its scans minus the
    mean over all scans (lamp and detector differences between benches, not grain)."""

    def __init__(self):
        self.offsets = None

    def fit(self, x, groups=None):
        n_groups = int(groups.max()) + 1
        sums = torch.zeros(n_groups, x.shape[1]).index_add_(0, groups, x)
        counts = torch.bincount(groups, minlength=n_groups).clamp_min(1).unsqueeze(1)
        self.offsets = sums / counts - x.mean(dim=0)
        return self

    def state_dict(self):
        return {"offsets": self.offsets}

    def load_state_dict(self, state):
        self.offsets = state["offsets"]

    def __call__(self, x, generator=None, groups=None):
        if self.offsets is None:
            raise RuntimeError("InstrumentBaseline used before fit()")
        return x - self.offsets[groups]


class Jitter(Stage):
    """Multiplicative noise per value (detector gain), training only."""

    def __init__(self, sigma):
        self.sigma = sigma

    def __call__(self, x, generator=None, groups=None):
        if not self.training or self.sigma <= 0:
            return x
        return x * (1.0 + self.sigma * torch.randn(x.shape, generator=generator))


class BaselineShift(Stage):
    """Adds a random absorbance offset in [0, sigma) and a tilt to each scan, training only: an
    ageing lamp only ever loses intensity, so drift raises absorbance. ``sigma`` is in units of
    the standardized features."""

    def __init__(self, sigma):
        self.sigma = sigma

    def __call__(self, x, generator=None, groups=None):
        if not self.training or self.sigma <= 0:
            return x
        n, width = x.shape
        offset = self.sigma * torch.rand(n, 1, generator=generator)
        tilt = 0.5 * self.sigma * torch.randn(n, 1, generator=generator)
        return x + offset + tilt * torch.linspace(-1.0, 1.0, width)


class BandDropout(Stage):
    """Zeroes each wavelength of a scan with probability p (dead detector pixels), training only."""

    def __init__(self, p):
        self.p = p

    def __call__(self, x, generator=None, groups=None):
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

    def fit(self, x, groups=None):
        for stage in self.stages:
            stage.fit(x, groups)
            x = stage(x, groups=groups)
        return self

    def state_dict(self):
        return {f"{i}.{k}": v for i, s in enumerate(self.stages) for k, v in s.state_dict().items()}

    def load_state_dict(self, state):
        for i, stage in enumerate(self.stages):
            prefix = f"{i}."
            own = {k[len(prefix):]: v for k, v in state.items() if k.startswith(prefix)}
            if own:
                stage.load_state_dict(own)

    def __call__(self, x, generator=None, groups=None):
        for stage in self.stages:
            x = stage(x, generator, groups)
        return x

    def __len__(self):
        return len(self.stages)
