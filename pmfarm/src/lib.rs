//! Farm library.
