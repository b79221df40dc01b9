"""The application: settings, wiring the catalogue to a store, jobs and their worker."""
