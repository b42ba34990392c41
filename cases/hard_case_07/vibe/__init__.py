"""vibe: bearing-fault classification from vibration spectra."""
