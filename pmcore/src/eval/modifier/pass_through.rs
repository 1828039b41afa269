//! Modifiers whose topology passes through unchanged (mapping, selection, material and
//! normal edits, and deformers whose positions are not computed: the counts are Max's, the
//! positions are the input's). The class catalogue names this evaluator for each of them.

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::outcome::{Evaluated, Stop};
use crate::eval::selection::Carry;

/// The pass-through evaluator.
pub const PASS_THROUGH: Modifier = Modifier::new(module_path!(), apply, true, Carry::Keeps);

/// The input, unchanged.
fn apply(_: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    Ok(input)
}
