//! The Teapot primitive (Class ID 0xacad13d3, 0xacad26d9) in Max's own vertex and face
//! order, from its parameter values (facts of the SDK sample `teapot.cpp` / `tea_util.cpp`,
//! `BuildMesh` and `display_patch`, and the public Utah teapot data).
//!
//! The teapot is 32 bicubic Bézier patches over Newell's 306 control points, in four parts:
//! body (16 patches: rim, upper body, lower body, bottom; 4 per ring), handle (4), spout
//! (4), lid (8: knob ring, lid ring). Max's patch table is the public one except for the
//! bottom, whose 4 patches close on the base centre (control point 269) and start from the
//! lower body's last row (points 92–95 …). Each patch is sampled on an (s + 1)² grid, s =
//! segments; a row `i` is the patch's second control index at `t = i / s`, a column `m` the
//! first at `u = m / s` (both accumulated in `f32` as Max adds its step).
//!
//! Welding, all inside one part (the handle and spout are not welded to the body): in a
//! ring, a patch's row 0 is the previous patch's last row and the ring's last patch ends on
//! the first patch's row 0; a ring below another takes its column 0 from the column s of
//! the patch above; the lid's knob ring collapses column 0 into its first point (the top
//! pole) and the bottom ring collapses column s into its row-0 last point (the base
//! centre). Every other grid point is a new vertex, in row-major order. Vertices per part:
//! body 16s² + 1, handle and spout 4s² + 2s each, lid 8s² + 1 (Max's own formulas).
//!
//! Faces: per grid cell (row x, column y) the triangles (a, b, c) and (c, d, a) with
//! a = (x, y), b = (x + 1, y), c = (x + 1, y + 1), d = (x, y + 1), edge c–a hidden;
//! degenerate triangles at the poles are kept: 2s² faces per patch, 64s² for a whole
//! teapot (`pycz__test.max`: segments 4, 530 / 1024 beside an 8 / 12 box). Smoothing group
//! = the smooth value (0–2), material id 0. Positions are scaled by radius / 2 about the
//! origin (the pivot at the base).
//!
//! Parameters (ParamBlock2 ids, the same indices in the old ParamBlock): 0 radius, 1
//! segments (clamped 1–64, as Max does), 2 smooth, 3 the obsolete part selector (−1 in
//! every corpus file; 0 all, 1 no lid, 2 lid only in old files), 4 body, 5 handle, 6 spout,
//! 7 lid, 8 generate mapping coordinates (not built: the real-world map size flag that
//! scales them is not decoded). `systemsoftware__teapot.max` has four segments-10 teapots
//! with one part each (4: body; 7: lid; 5, 6: handle, spout): 1601 + 801 + 420 + 420 =
//! 3242 vertices, 3200 + 1600 + 800 + 800 = 6400 faces, its Mesh Totals.

use super::PrimitiveError;
use super::{params_of, prim_stop, within, MaxOrder, Primitive};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use glam::Vec3;

/// The Teapot's evaluator. Its tri mesh is in Max's order: the four one-part teapots of
/// `systemsoftware__teapot.max` (segments 10) against the FBX Max exported from them — the
/// same 1601 / 420 / 801 / 420 vertices in the same order (within 1e-4 at radius 100), and
/// the exporter's polygons are this file's triangle pairs in order, joined across the
/// hidden diagonal, the degenerate pole triangles dropped. Its poly conversion is not built.
pub(crate) const TEAPOT: Primitive =
    Primitive { module: module_path!(), build, order: MaxOrder::TriOnly, as_poly: None };

/// Teapot parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TeapotParams {
    /// Radius (id 0): the body's widest radius.
    pub radius: f32,
    /// Segments per patch edge (id 1).
    pub segments: i32,
    /// Smooth (id 2): the faces' smoothing group bits, 0–2.
    pub smooth: i32,
    /// Parts (ids 4–7).
    pub parts: Parts,
}

/// Which parts a teapot builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Parts {
    /// Body (rim, body and bottom).
    pub body: bool,
    /// Handle.
    pub handle: bool,
    /// Spout.
    pub spout: bool,
    /// Lid.
    pub lid: bool,
}

impl Parts {
    /// Every part.
    pub(crate) const ALL: Parts = Parts { body: true, handle: true, spout: true, lid: true };

    /// The parts an old file's part selector (parameter 3) names, when it names them:
    /// 0 both, 1 the body without the lid, 2 the lid alone (`TeapartPLC`); any other value
    /// (−1: "already converted") leaves the stored flags.
    fn from_selector(selector: i32) -> Option<Parts> {
        match selector {
            0 => Some(Parts::ALL),
            1 => Some(Parts { lid: false, ..Parts::ALL }),
            2 => Some(Parts { body: false, handle: false, spout: false, lid: true }),
            _ => None,
        }
    }
}

/// Segments as Max clamps them (`LimitValue` 1–64): 0 builds 1, anything larger 64.
fn segs(v: i32) -> u32 {
    v.clamp(1, 64) as u32
}

impl TeapotParams {
    /// Vertices: body 16s² + 1, handle 4s² + 2s, spout 4s² + 2s, lid 8s² + 1.
    pub(crate) fn vertices(&self) -> u64 {
        let s = u64::from(segs(self.segments));
        let Parts { body, handle, spout, lid } = self.parts;
        let part = |on: bool, n: u64| if on { n } else { 0 };
        part(body, 16 * s * s + 1)
            + part(handle, 4 * s * s + 2 * s)
            + part(spout, 4 * s * s + 2 * s)
            + part(lid, 8 * s * s + 1)
    }

    /// Triangles: 2s² per patch of the parts built (16, 4, 4, 8 patches).
    pub(crate) fn faces(&self) -> u64 {
        let s = u64::from(segs(self.segments));
        let Parts { body, handle, spout, lid } = self.parts;
        let patches = 16 * u64::from(body) + 4 * u64::from(handle) + 4 * u64::from(spout) + 8 * u64::from(lid);
        2 * s * s * patches
    }
}

/// Newell's 306 control points (the public Utah teapot data, z up, spout towards +X,
/// rim at radius 1.4–1.5, body 2.0, lid top at 3.15, base at 0), with Max's one
/// difference: point 16 has x = −0.874 where the public data has −0.784. Measured on the
/// FBX that 3ds Max exported beside `systemsoftware__teapot.max` (SystemSoftware/
/// Unity-Rotation-Playground `Assets/teapot.FBX`): the rim patch 1's vertices are off by
/// −0.09 · B₁(t) · B₀(u) in x — that point's weight — and by nothing else.
#[rustfmt::skip]
const CONTROL: [[f32; 3]; 306] = [
    [1.4, 0.0, 2.4], [1.4, -0.784, 2.4], [0.784, -1.4, 2.4], [0.0, -1.4, 2.4],
    [1.3375, 0.0, 2.53125], [1.3375, -0.749, 2.53125], [0.749, -1.3375, 2.53125], [0.0, -1.3375, 2.53125],
    [1.4375, 0.0, 2.53125], [1.4375, -0.805, 2.53125], [0.805, -1.4375, 2.53125], [0.0, -1.4375, 2.53125],
    [1.5, 0.0, 2.4], [1.5, -0.84, 2.4], [0.84, -1.5, 2.4], [0.0, -1.5, 2.4],
    [-0.874, -1.4, 2.4], [-1.4, -0.784, 2.4], [-1.4, 0.0, 2.4], [-0.749, -1.3375, 2.53125],
    [-1.3375, -0.749, 2.53125], [-1.3375, 0.0, 2.53125], [-0.805, -1.4375, 2.53125], [-1.4375, -0.805, 2.53125],
    [-1.4375, 0.0, 2.53125], [-0.84, -1.5, 2.4], [-1.5, -0.84, 2.4], [-1.5, 0.0, 2.4],
    [-1.4, 0.784, 2.4], [-0.784, 1.4, 2.4], [0.0, 1.4, 2.4], [-1.3375, 0.749, 2.53125],
    [-0.749, 1.3375, 2.53125], [0.0, 1.3375, 2.53125], [-1.4375, 0.805, 2.53125], [-0.805, 1.4375, 2.53125],
    [0.0, 1.4375, 2.53125], [-1.5, 0.84, 2.4], [-0.84, 1.5, 2.4], [0.0, 1.5, 2.4],
    [0.784, 1.4, 2.4], [1.4, 0.784, 2.4], [0.749, 1.3375, 2.53125], [1.3375, 0.749, 2.53125],
    [0.805, 1.4375, 2.53125], [1.4375, 0.805, 2.53125], [0.84, 1.5, 2.4], [1.5, 0.84, 2.4],
    [1.75, 0.0, 1.875], [1.75, -0.98, 1.875], [0.98, -1.75, 1.875], [0.0, -1.75, 1.875],
    [2.0, 0.0, 1.35], [2.0, -1.12, 1.35], [1.12, -2.0, 1.35], [0.0, -2.0, 1.35],
    [2.0, 0.0, 0.9], [2.0, -1.12, 0.9], [1.12, -2.0, 0.9], [0.0, -2.0, 0.9],
    [-0.98, -1.75, 1.875], [-1.75, -0.98, 1.875], [-1.75, 0.0, 1.875], [-1.12, -2.0, 1.35],
    [-2.0, -1.12, 1.35], [-2.0, 0.0, 1.35], [-1.12, -2.0, 0.9], [-2.0, -1.12, 0.9],
    [-2.0, 0.0, 0.9], [-1.75, 0.98, 1.875], [-0.98, 1.75, 1.875], [0.0, 1.75, 1.875],
    [-2.0, 1.12, 1.35], [-1.12, 2.0, 1.35], [0.0, 2.0, 1.35], [-2.0, 1.12, 0.9],
    [-1.12, 2.0, 0.9], [0.0, 2.0, 0.9], [0.98, 1.75, 1.875], [1.75, 0.98, 1.875],
    [1.12, 2.0, 1.35], [2.0, 1.12, 1.35], [1.12, 2.0, 0.9], [2.0, 1.12, 0.9],
    [2.0, 0.0, 0.45], [2.0, -1.12, 0.45], [1.12, -2.0, 0.45], [0.0, -2.0, 0.45],
    [1.5, 0.0, 0.225], [1.5, -0.84, 0.225], [0.84, -1.5, 0.225], [0.0, -1.5, 0.225],
    [1.5, 0.0, 0.15], [1.5, -0.84, 0.15], [0.84, -1.5, 0.15], [0.0, -1.5, 0.15],
    [-1.12, -2.0, 0.45], [-2.0, -1.12, 0.45], [-2.0, 0.0, 0.45], [-0.84, -1.5, 0.225],
    [-1.5, -0.84, 0.225], [-1.5, 0.0, 0.225], [-0.84, -1.5, 0.15], [-1.5, -0.84, 0.15],
    [-1.5, 0.0, 0.15], [-2.0, 1.12, 0.45], [-1.12, 2.0, 0.45], [0.0, 2.0, 0.45],
    [-1.5, 0.84, 0.225], [-0.84, 1.5, 0.225], [0.0, 1.5, 0.225], [-1.5, 0.84, 0.15],
    [-0.84, 1.5, 0.15], [0.0, 1.5, 0.15], [1.12, 2.0, 0.45], [2.0, 1.12, 0.45],
    [0.84, 1.5, 0.225], [1.5, 0.84, 0.225], [0.84, 1.5, 0.15], [1.5, 0.84, 0.15],
    [-1.6, 0.0, 2.025], [-1.6, -0.3, 2.025], [-1.5, -0.3, 2.25], [-1.5, 0.0, 2.25],
    [-2.3, 0.0, 2.025], [-2.3, -0.3, 2.025], [-2.5, -0.3, 2.25], [-2.5, 0.0, 2.25],
    [-2.7, 0.0, 2.025], [-2.7, -0.3, 2.025], [-3.0, -0.3, 2.25], [-3.0, 0.0, 2.25],
    [-2.7, 0.0, 1.8], [-2.7, -0.3, 1.8], [-3.0, -0.3, 1.8], [-3.0, 0.0, 1.8],
    [-1.5, 0.3, 2.25], [-1.6, 0.3, 2.025], [-2.5, 0.3, 2.25], [-2.3, 0.3, 2.025],
    [-3.0, 0.3, 2.25], [-2.7, 0.3, 2.025], [-3.0, 0.3, 1.8], [-2.7, 0.3, 1.8],
    [-2.7, 0.0, 1.575], [-2.7, -0.3, 1.575], [-3.0, -0.3, 1.35], [-3.0, 0.0, 1.35],
    [-2.5, 0.0, 1.125], [-2.5, -0.3, 1.125], [-2.65, -0.3, 0.9375], [-2.65, 0.0, 0.9375],
    [-2.0, -0.3, 0.9], [-1.9, -0.3, 0.6], [-1.9, 0.0, 0.6], [-3.0, 0.3, 1.35],
    [-2.7, 0.3, 1.575], [-2.65, 0.3, 0.9375], [-2.5, 0.3, 1.125], [-1.9, 0.3, 0.6],
    [-2.0, 0.3, 0.9], [1.7, 0.0, 1.425], [1.7, -0.66, 1.425], [1.7, -0.66, 0.6],
    [1.7, 0.0, 0.6], [2.6, 0.0, 1.425], [2.6, -0.66, 1.425], [3.1, -0.66, 0.825],
    [3.1, 0.0, 0.825], [2.3, 0.0, 2.1], [2.3, -0.25, 2.1], [2.4, -0.25, 2.025],
    [2.4, 0.0, 2.025], [2.7, 0.0, 2.4], [2.7, -0.25, 2.4], [3.3, -0.25, 2.4],
    [3.3, 0.0, 2.4], [1.7, 0.66, 0.6], [1.7, 0.66, 1.425], [3.1, 0.66, 0.825],
    [2.6, 0.66, 1.425], [2.4, 0.25, 2.025], [2.3, 0.25, 2.1], [3.3, 0.25, 2.4],
    [2.7, 0.25, 2.4], [2.8, 0.0, 2.475], [2.8, -0.25, 2.475], [3.525, -0.25, 2.49375],
    [3.525, 0.0, 2.49375], [2.9, 0.0, 2.475], [2.9, -0.15, 2.475], [3.45, -0.15, 2.5125],
    [3.45, 0.0, 2.5125], [2.8, 0.0, 2.4], [2.8, -0.15, 2.4], [3.2, -0.15, 2.4],
    [3.2, 0.0, 2.4], [3.525, 0.25, 2.49375], [2.8, 0.25, 2.475], [3.45, 0.15, 2.5125],
    [2.9, 0.15, 2.475], [3.2, 0.15, 2.4], [2.8, 0.15, 2.4], [0.0, 0.0, 3.15],
    [0.0, -0.002, 3.15], [0.002, 0.0, 3.15], [0.8, 0.0, 3.15], [0.8, -0.45, 3.15],
    [0.45, -0.8, 3.15], [0.0, -0.8, 3.15], [0.0, 0.0, 2.85], [0.2, 0.0, 2.7],
    [0.2, -0.112, 2.7], [0.112, -0.2, 2.7], [0.0, -0.2, 2.7], [-0.002, 0.0, 3.15],
    [-0.45, -0.8, 3.15], [-0.8, -0.45, 3.15], [-0.8, 0.0, 3.15], [-0.112, -0.2, 2.7],
    [-0.2, -0.112, 2.7], [-0.2, 0.0, 2.7], [0.0, 0.002, 3.15], [-0.8, 0.45, 3.15],
    [-0.45, 0.8, 3.15], [0.0, 0.8, 3.15], [-0.2, 0.112, 2.7], [-0.112, 0.2, 2.7],
    [0.0, 0.2, 2.7], [0.45, 0.8, 3.15], [0.8, 0.45, 3.15], [0.112, 0.2, 2.7],
    [0.2, 0.112, 2.7], [0.4, 0.0, 2.55], [0.4, -0.224, 2.55], [0.224, -0.4, 2.55],
    [0.0, -0.4, 2.55], [1.3, 0.0, 2.55], [1.3, -0.728, 2.55], [0.728, -1.3, 2.55],
    [0.0, -1.3, 2.55], [1.3, 0.0, 2.4], [1.3, -0.728, 2.4], [0.728, -1.3, 2.4],
    [0.0, -1.3, 2.4], [-0.224, -0.4, 2.55], [-0.4, -0.224, 2.55], [-0.4, 0.0, 2.55],
    [-0.728, -1.3, 2.55], [-1.3, -0.728, 2.55], [-1.3, 0.0, 2.55], [-0.728, -1.3, 2.4],
    [-1.3, -0.728, 2.4], [-1.3, 0.0, 2.4], [-0.4, 0.224, 2.55], [-0.224, 0.4, 2.55],
    [0.0, 0.4, 2.55], [-1.3, 0.728, 2.55], [-0.728, 1.3, 2.55], [0.0, 1.3, 2.55],
    [-1.3, 0.728, 2.4], [-0.728, 1.3, 2.4], [0.0, 1.3, 2.4], [0.224, 0.4, 2.55],
    [0.4, 0.224, 2.55], [0.728, 1.3, 2.55], [1.3, 0.728, 2.55], [0.728, 1.3, 2.4],
    [1.3, 0.728, 2.4], [0.0, 0.0, 0.0], [1.5, 0.0, 0.15], [1.5, 0.84, 0.15],
    [0.84, 1.5, 0.15], [0.0, 1.5, 0.15], [1.5, 0.0, 0.075], [1.5, 0.84, 0.075],
    [0.84, 1.5, 0.075], [0.0, 1.5, 0.075], [1.425, 0.0, 0.0], [1.425, 0.798, 0.0],
    [0.798, 1.425, 0.0], [0.0, 1.425, 0.0], [-0.84, 1.5, 0.15], [-1.5, 0.84, 0.15],
    [-1.5, 0.0, 0.15], [-0.84, 1.5, 0.075], [-1.5, 0.84, 0.075], [-1.5, 0.0, 0.075],
    [-0.798, 1.425, 0.0], [-1.425, 0.798, 0.0], [-1.425, 0.0, 0.0], [-1.5, -0.84, 0.15],
    [-0.84, -1.5, 0.15], [0.0, -1.5, 0.15], [-1.5, -0.84, 0.075], [-0.84, -1.5, 0.075],
    [0.0, -1.5, 0.075], [-1.425, -0.798, 0.0], [-0.798, -1.425, 0.0], [0.0, -1.425, 0.0],
    [0.84, -1.5, 0.15], [1.5, -0.84, 0.15], [0.84, -1.5, 0.075], [1.5, -0.84, 0.075],
    [0.798, -1.425, 0.0], [1.425, -0.798, 0.0],
];

/// Max's 32 patches, 4 × 4 control-point indices each (row-major: first index k is the
/// column direction, second index j the row direction): rim 0–3, upper body 4–7, lower
/// body 8–11, bottom 12–15, handle 16–19, spout 20–23, lid knob 24–27, lid 28–31.
#[rustfmt::skip]
const PATCHES: [[u16; 16]; 32] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
    [3, 16, 17, 18, 7, 19, 20, 21, 11, 22, 23, 24, 15, 25, 26, 27],
    [18, 28, 29, 30, 21, 31, 32, 33, 24, 34, 35, 36, 27, 37, 38, 39],
    [30, 40, 41, 0, 33, 42, 43, 4, 36, 44, 45, 8, 39, 46, 47, 12],
    [12, 13, 14, 15, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59],
    [15, 25, 26, 27, 51, 60, 61, 62, 55, 63, 64, 65, 59, 66, 67, 68],
    [27, 37, 38, 39, 62, 69, 70, 71, 65, 72, 73, 74, 68, 75, 76, 77],
    [39, 46, 47, 12, 71, 78, 79, 48, 74, 80, 81, 52, 77, 82, 83, 56],
    [56, 57, 58, 59, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95],
    [59, 66, 67, 68, 87, 96, 97, 98, 91, 99, 100, 101, 95, 102, 103, 104],
    [68, 75, 76, 77, 98, 105, 106, 107, 101, 108, 109, 110, 104, 111, 112, 113],
    [77, 82, 83, 56, 107, 114, 115, 84, 110, 116, 117, 88, 113, 118, 119, 92],
    [92, 93, 94, 95, 274, 303, 302, 296, 278, 305, 304, 299, 269, 269, 269, 269],
    [95, 102, 103, 104, 296, 295, 294, 287, 299, 298, 297, 290, 269, 269, 269, 269],
    [104, 111, 112, 113, 287, 286, 285, 277, 290, 289, 288, 281, 269, 269, 269, 269],
    [113, 118, 119, 92, 277, 276, 275, 274, 281, 280, 279, 278, 269, 269, 269, 269],
    [120, 121, 122, 123, 124, 125, 126, 127, 128, 129, 130, 131, 132, 133, 134, 135],
    [123, 136, 137, 120, 127, 138, 139, 124, 131, 140, 141, 128, 135, 142, 143, 132],
    [132, 133, 134, 135, 144, 145, 146, 147, 148, 149, 150, 151, 68, 152, 153, 154],
    [135, 142, 143, 132, 147, 155, 156, 144, 151, 157, 158, 148, 154, 159, 160, 68],
    [161, 162, 163, 164, 165, 166, 167, 168, 169, 170, 171, 172, 173, 174, 175, 176],
    [164, 177, 178, 161, 168, 179, 180, 165, 172, 181, 182, 169, 176, 183, 184, 173],
    [173, 174, 175, 176, 185, 186, 187, 188, 189, 190, 191, 192, 193, 194, 195, 196],
    [176, 183, 184, 173, 188, 197, 198, 185, 192, 199, 200, 189, 196, 201, 202, 193],
    [203, 203, 203, 203, 206, 207, 208, 209, 210, 210, 210, 210, 211, 212, 213, 214],
    [203, 203, 203, 203, 209, 216, 217, 218, 210, 210, 210, 210, 214, 219, 220, 221],
    [203, 203, 203, 203, 218, 223, 224, 225, 210, 210, 210, 210, 221, 226, 227, 228],
    [203, 203, 203, 203, 225, 229, 230, 206, 210, 210, 210, 210, 228, 231, 232, 211],
    [211, 212, 213, 214, 233, 234, 235, 236, 237, 238, 239, 240, 241, 242, 243, 244],
    [214, 219, 220, 221, 236, 245, 246, 247, 240, 248, 249, 250, 244, 251, 252, 253],
    [221, 226, 227, 228, 247, 254, 255, 256, 250, 257, 258, 259, 253, 260, 261, 262],
    [228, 231, 232, 211, 256, 263, 264, 233, 259, 265, 266, 237, 262, 267, 268, 241],
];

/// Where a ring collapses to one point.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pole {
    /// No pole.
    None,
    /// Column 0 is the patch's first point (the lid's top).
    Start,
    /// Column s is the patch's row-0 last point (the base centre).
    End,
}

/// A ring of patches welded side by side, optionally under another ring.
#[derive(Clone, Copy)]
struct Ring {
    /// First patch.
    first: usize,
    /// Patches in the ring.
    count: usize,
    /// First patch of the ring above, whose columns s this ring's columns 0 are.
    above: Option<usize>,
    /// Collapsed column.
    pole: Pole,
}

const fn ring(first: usize, count: usize, above: Option<usize>, pole: Pole) -> Ring {
    Ring { first, count, above, pole }
}

/// The rings of each part, in Max's build order (body, handle, spout, lid).
const BODY: [Ring; 4] = [
    ring(0, 4, None, Pole::None),
    ring(4, 4, Some(0), Pole::None),
    ring(8, 4, Some(4), Pole::None),
    ring(12, 4, Some(8), Pole::End),
];
const HANDLE: [Ring; 2] = [ring(16, 2, None, Pole::None), ring(18, 2, Some(16), Pole::None)];
const SPOUT: [Ring; 2] = [ring(20, 2, None, Pole::None), ring(22, 2, Some(20), Pole::None)];
const LID: [Ring; 2] = [ring(24, 4, None, Pole::Start), ring(28, 4, Some(24), Pole::None)];

/// One coordinate of a cubic Bézier at `t`, in the sample's `f32` operation order.
fn bezier1(d: [f32; 4], t: f32) -> f32 {
    let r = 1.0 - t;
    d[0] * r * r * r + d[1] * 3.0 * t * r * r + d[2] * 3.0 * t * t * r + d[3] * t * t * t
}

fn bezier(d: [Vec3; 4], t: f32) -> Vec3 {
    let c = |f: fn(Vec3) -> f32| bezier1([f(d[0]), f(d[1]), f(d[2]), f(d[3])], t);
    Vec3::new(c(|v| v.x), c(|v| v.y), c(|v| v.z))
}

/// The sample's accumulated parameters: `steps[i]` = step added `i` times (`steps[0]` = 0).
fn accumulated(s: u32) -> Vec<f32> {
    let step = 1.0 / s as f32;
    let mut t = 0.0f32;
    let mut out = Vec::with_capacity(s as usize + 1);
    for _ in 0..=s {
        out.push(t);
        t += step;
    }
    out
}

/// Builds one patch's grid of vertex indices (row-major, (s + 1)²), pushing its new
/// vertices; `grids` holds the grids of the patches already built.
fn patch_grid(ring: &Ring, k: usize, s: usize, ts: &[f32], grids: &[Vec<u32>], positions: &mut Vec<Vec3>) -> Vec<u32> {
    let p = ring.first + k;
    let w = s + 1;
    let control = |i: usize| Vec3::from_array(CONTROL[usize::from(PATCHES[p][i])]);
    let mut grid: Vec<u32> = Vec::with_capacity(w * w);
    for (i, &t) in ts.iter().enumerate() {
        // The row's curve: each column-direction control row blended at t.
        let d = [0, 1, 2, 3].map(|r| bezier([0, 1, 2, 3].map(|j| control(r * 4 + j)), t));
        for m in 0..w {
            let shared = if i == 0 && k > 0 {
                Some(grids[p - 1][s * w + m])
            } else if i == s && k + 1 == ring.count {
                Some(grids[ring.first][m])
            } else if m == 0 && ring.above.is_some() {
                ring.above.map(|a| grids[a + k][i * w + s])
            } else if i > 0 && m == 0 && ring.pole == Pole::Start {
                Some(grid[0])
            } else if i > 0 && m == s && ring.pole == Pole::End {
                Some(grid[s])
            } else {
                None
            };
            grid.push(shared.unwrap_or_else(|| {
                let v = if m == 0 {
                    d[0]
                } else if m == s {
                    d[3]
                } else {
                    bezier(d, ts[m])
                };
                positions.push(v);
                positions.len() as u32 - 1
            }));
        }
    }
    grid
}

/// The two triangles of every grid cell, edge c–a hidden (the sample's edge flags 1, 1, 0).
fn push_faces(grid: &[u32], s: usize, smoothing: u32, polygons: &mut Vec<Polygon>) {
    let w = s + 1;
    for x in 0..s {
        for y in 0..s {
            let (a, b) = (grid[x * w + y], grid[(x + 1) * w + y]);
            let (c, d) = (grid[(x + 1) * w + y + 1], grid[x * w + y + 1]);
            for corners in [vec![a, b, c], vec![c, d, a]] {
                polygons.push(Polygon { corners, material: 0, smoothing, triangles: Vec::new(), hidden_edges: 0b100 });
            }
        }
    }
}

/// The teapot as Max builds it.
pub(crate) fn teapot_mesh(p: &TeapotParams) -> Result<EvalMesh, PrimitiveError> {
    if !p.radius.is_finite() {
        return Err(PrimitiveError::Unsupported("non-finite teapot radius"));
    }
    let s = segs(p.segments) as usize;
    let ts = accumulated(s as u32);
    let smoothing = p.smooth.clamp(0, 2) as u32;
    let Parts { body, handle, spout, lid } = p.parts;
    let parts: [(bool, &[Ring]); 4] = [(body, &BODY), (handle, &HANDLE), (spout, &SPOUT), (lid, &LID)];
    let mut positions = Vec::with_capacity(p.vertices() as usize);
    let mut polygons = Vec::with_capacity(p.faces() as usize);
    let mut grids: Vec<Vec<u32>> = vec![Vec::new(); PATCHES.len()];
    for ring in parts.iter().filter(|(on, _)| *on).flat_map(|(_, rings)| rings.iter()) {
        for k in 0..ring.count {
            let grid = patch_grid(ring, k, s, &ts, &grids, &mut positions);
            push_faces(&grid, s, smoothing, &mut polygons);
            grids[ring.first + k] = grid;
        }
    }
    // Max scales about the origin by radius / 2 (the data is a radius-2 teapot), clamping
    // a negative radius to 0.
    let scale = p.radius.clamp(0.0, 1.0e30) / 2.0;
    for v in &mut positions {
        *v *= scale;
    }
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// The Teapot from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let flag = |id: u16| p.int_or(id, 1).map(|v| v != 0).map_err(pe);
    let stored = Parts { body: flag(4)?, handle: flag(5)?, spout: flag(6)?, lid: flag(7)? };
    let q = TeapotParams {
        radius: p.float(0).map_err(pe)?,
        segments: p.int(1).map_err(pe)?,
        smooth: p.int_or(2, 1).map_err(pe)?,
        parts: Parts::from_selector(p.int_or(3, -1).map_err(pe)?).unwrap_or(stored),
    };
    within(ctx, base, q.vertices())?;
    teapot_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn teapot(segments: i32, parts: Parts) -> TeapotParams {
        TeapotParams { radius: 2.0, segments, smooth: 1, parts }
    }

    const BODY_ONLY: Parts = Parts { body: true, handle: false, spout: false, lid: false };

    #[test]
    fn one_segment_teapot_by_hand() {
        // Segments 1, radius 2 (scale 1): each patch is its 4 corner control points.
        // Body: rim ring 8 (patch 0 makes 4, patches 1 and 2 two each, patch 3 none),
        // upper and lower body rings 4 each (column 0 and row 0 shared: one new point per
        // patch), bottom 1 (patch 12's column 1, the base centre; the others reuse it):
        // 17. Handle: patch 16 makes 4, 18 two, 17 and 19 none: 6. Spout likewise 6. Lid:
        // the top pole and 4 knob points, then 4 lid points: 9. 38 vertices; 32 patches ×
        // 2 triangles = 64 faces — Max's 16s² + 1, 4s² + 2s, 4s² + 2s, 8s² + 1.
        let all = teapot(1, Parts::ALL);
        let m = teapot_mesh(&all).unwrap();
        assert_eq!((m.positions.len(), m.polygons.len()), (38, 64));
        assert_eq!((all.vertices(), all.faces()), (38, 64));
        let body = [
            [1.4, 0.0, 2.4],
            [1.5, 0.0, 2.4],
            [0.0, -1.4, 2.4],
            [0.0, -1.5, 2.4],
            [-1.4, 0.0, 2.4],
            [-1.5, 0.0, 2.4],
            [0.0, 1.4, 2.4],
            [0.0, 1.5, 2.4],
            [2.0, 0.0, 0.9],
            [0.0, -2.0, 0.9],
            [-2.0, 0.0, 0.9],
            [0.0, 2.0, 0.9],
            [1.5, 0.0, 0.15],
            [0.0, -1.5, 0.15],
            [-1.5, 0.0, 0.15],
            [0.0, 1.5, 0.15],
            [0.0; 3],
        ];
        assert_eq!(m.positions[..17], body.map(Vec3::from_array));
        // Handle: patch 16's corners (−1.6, 0, 2.025), (−2.7, 0, 1.8), (−1.5, 0, 2.25),
        // (−3, 0, 1.8), then patch 18's (−2, 0, 0.9) — on the body's vertex 10, not welded
        // to it — and (−1.9, 0, 0.6).
        let handle = [
            [-1.6, 0.0, 2.025],
            [-2.7, 0.0, 1.8],
            [-1.5, 0.0, 2.25],
            [-3.0, 0.0, 1.8],
            [-2.0, 0.0, 0.9],
            [-1.9, 0.0, 0.6],
        ];
        assert_eq!(m.positions[17..23], handle.map(Vec3::from_array));
        assert_eq!(m.positions[21], m.positions[10]);
        // Lid: the pole (0, 0, 3.15) first.
        assert_eq!(m.positions[29], Vec3::new(0.0, 0.0, 3.15));
        let corners = |i: usize| m.polygons[i].corners.clone();
        // Patch 0's cell: a = 0, b = 2, c = 3, d = 1 → (0 2 3) (3 1 0), edge c–a hidden.
        assert_eq!((corners(0), corners(1)), (vec![0, 2, 3], vec![3, 1, 0]));
        assert!(m.polygons.iter().all(|p| p.hidden_edges == 0b100 && p.smoothing == 1));
        // Patch 3 closes the rim: its cell runs from patch 2's last row (6, 7) to patch 0's
        // first (0, 1): (6 0 1) (1 7 6).
        assert_eq!((corners(6), corners(7)), (vec![6, 0, 1], vec![1, 7, 6]));
        // Bottom patch 12: a = 12, b = 13, c = d = 16 (the pole): the second is degenerate.
        assert_eq!((corners(24), corners(25)), (vec![12, 13, 16], vec![16, 16, 12]));
    }

    #[test]
    fn body_vertices_equal_max_fbx_export() {
        // `systemsoftware__teapot.max` Teapot001: radius 100, segments 10, body only; its FBX
        // export (SystemSoftware/Unity-Rotation-Playground Assets/teapot.FBX) has vertex 0 at
        // (70, 0, 120), vertex 121 (patch 1, row 1, column 0 — where Max's control point
        // 16 differs from the public data) at (−12.5791, −69.0984, 120.0), vertex 1249 (the
        // base centre: rim 440, bodies 400 + 400, then patch 12's row 0 makes columns 1–10)
        // at the origin and the last, 1600, at (19.1637, 3.1854, 0.1087).
        let p = TeapotParams { radius: 100.0, segments: 10, smooth: 1, parts: BODY_ONLY };
        let m = teapot_mesh(&p).unwrap();
        assert_eq!(m.positions.len(), 1601);
        for (i, want) in [
            (0, [70.0, 0.0, 120.0]),
            (121, [-12.5791, -69.0984, 120.0]),
            (1249, [0.0; 3]),
            (1600, [19.1637, 3.1854, 0.1087]),
        ] {
            assert!(m.positions[i].abs_diff_eq(Vec3::from_array(want), 1e-3), "{i}: {}", m.positions[i]);
        }
    }

    #[test]
    fn segments_clamp_as_max_clamps_them() {
        // 0 and negative build 1 segment, anything above 64 builds 64 (bounded memory:
        // 32 · 65² grid points at most); a non-finite radius is refused.
        assert_eq!(teapot(0, Parts::ALL).vertices(), 38);
        assert_eq!(teapot(i32::MIN, Parts::ALL).vertices(), 38);
        let huge = teapot(i32::MAX, Parts::ALL);
        assert_eq!((huge.vertices(), huge.faces()), (32 * 64 * 64 + 2 + 4 * 64, 64 * 64 * 64));
        let nan = TeapotParams { radius: f32::NAN, ..teapot(4, Parts::ALL) };
        assert_eq!(teapot_mesh(&nan), Err(PrimitiveError::Unsupported("non-finite teapot radius")));
        assert_eq!(Parts::from_selector(2), Some(Parts { body: false, handle: false, spout: false, lid: true }));
        assert_eq!(Parts::from_selector(-1), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        #[test]
        fn counts_follow_max_formulas_and_parts_weld_their_seams(
            s in 1i32..9, body: bool, handle: bool, spout: bool, lid: bool,
        ) {
            // Max's own count formulas (BuildMesh): body (s−1)²·16 + 16s + 16(s−1) + 1,
            // handle and spout (s+1)s·2 + 2s², lid (s−1)²·8 + 8s + 8(s−1) + 1; faces 2s² per
            // patch (16, 4, 4, 8).
            let p = teapot(s, Parts { body, handle, spout, lid });
            let m = teapot_mesh(&p).unwrap();
            let on = |b: bool, n: i32| if b { n as u64 } else { 0 };
            let v = on(body, (s - 1) * (s - 1) * 16 + 16 * s + 16 * (s - 1) + 1)
                + on(handle, (s + 1) * s * 2 + 2 * s * s)
                + on(spout, (s + 1) * s * 2 + 2 * s * s)
                + on(lid, (s - 1) * (s - 1) * 8 + 8 * s + 8 * (s - 1) + 1);
            let f = 2 * (s * s) as u64 * (on(body, 16) + on(handle, 4) + on(spout, 4) + on(lid, 8));
            proptest::prop_assert_eq!((m.positions.len() as u64, m.polygons.len() as u64), (v, f));
            proptest::prop_assert_eq!((p.vertices(), p.faces()), (v, f));
            proptest::prop_assert!(m.polygons.iter().flat_map(|q| &q.corners).all(|&c| (c as usize) < m.positions.len()));
            // Every vertex is used, and within one part no two vertices coincide: the
            // seams and poles are welded, nothing doubled.
            let mut used = vec![false; m.positions.len()];
            m.polygons.iter().flat_map(|q| &q.corners).for_each(|&c| used[c as usize] = true);
            proptest::prop_assert!(used.iter().all(|&u| u));
            if [body, handle, spout, lid].iter().filter(|&&b| b).count() == 1 {
                let mut keys: Vec<[u32; 3]> = m.positions.iter().map(|p| p.to_array().map(|c| (c * 1e4).round() as i32 as u32)).collect();
                keys.sort_unstable();
                keys.dedup();
                proptest::prop_assert_eq!(keys.len(), m.positions.len());
            }
        }
    }
}
