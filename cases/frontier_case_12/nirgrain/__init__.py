"""nirgrain: wheat-variety classification from near-infrared scans."""
