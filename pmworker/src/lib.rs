//! Worker library.
