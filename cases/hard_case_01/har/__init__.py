"""Human-activity recognition from wearable IMU windows: data, models, training, export."""

__version__ = "0.4.1"
