//! The tolerances shared by the comparisons of positions and local matrices (`transforms`,
//! `geometry`, `animation`).

/// Translation and vertex tolerance, relative to `max(1, |value|)`: Max keeps positions and
/// transforms in `f32` (24-bit mantissa, 6e-8 relative) and composes a few matrices in
/// `f32` before the exporter widens them to `f64`; 1e-5 leaves room for ~100 roundings and
/// is still far below any edit a user makes (0.001 units on a 100-unit scene).
pub const POSITION_TOLERANCE: f64 = 1e-5;
/// Tolerance on the rotation-scale part of a local matrix (unitless, relative to the
/// largest scale): the same f32 argument on unit-length axes.
pub const LINEAR_TOLERANCE: f64 = 1e-4;
