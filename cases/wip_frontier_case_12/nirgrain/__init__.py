"""nirgrain: bearing-fault classification from vibration spectra."""
