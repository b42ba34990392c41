"""leafscan: leaf-disease classification from greenhouse reflectance spectra."""
