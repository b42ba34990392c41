"""Other evaluation engines (Harbor, Inspect AI): export our cases to them and bring their results back."""
