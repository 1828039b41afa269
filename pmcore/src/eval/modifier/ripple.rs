//! The Ripple modifier (Class ID 0x45, 0): concentric sine waves along the gizmo's Z.
//!
//! A simple modifier (the same gizmo frame as Bend, [`super::bend`]): a vertex is taken
//! into gizmo space, moved along Z, and taken back. Facts of the SDK sample `sinwave.cpp`
//! (`SinWaveOMod`, `SinWaveDeformer`), checked on `danshaub__GameDevFinal`'s `Bowl.FBX`:
//!
//! * the wave: `A · sin(2π (r / wave length + phase)) · exp(−decay · r)`, `r` the distance
//!   from the gizmo's Z axis (a zero wave length is taken as 1e-7);
//! * the amplitude `A`: amplitude 1 when both amplitudes are equal; otherwise, with
//!   `u = acos(x / |p|) / π` folded to `[0, 0.5]` and doubled, smoothed as
//!   `s = u² (3 − 2u)`, `A = amplitude 1 · (1 − s) + amplitude 2 · s` — amplitude 1 along
//!   the gizmo's X axis, amplitude 2 across it (`|p|` is the point's full distance from the
//!   gizmo origin; at the origin, amplitude 1).
//!
//! Parameter block (old-style, reference 2): 0 amplitude 1, 1 amplitude 2, 2 wave length,
//! 3 phase, 4 decay (clamped at 0).

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::gizmo::simple_frame;
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{counts_only, Evaluated, Stop};
use crate::eval::params::{ParamError, Params};
use crate::eval::selection::Carry;
use glam::Mat4;

/// Ripple parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RippleParams {
    /// Amplitude 1 (id 0).
    pub amplitude1: f32,
    /// Amplitude 2 (id 1).
    pub amplitude2: f32,
    /// Wave length (id 2).
    pub wave_length: f32,
    /// Phase (id 3), in waves.
    pub phase: f32,
    /// Decay (id 4).
    pub decay: f32,
    /// Object space → gizmo space (as for Bend: inverse centre · inverse gizmo · mod
    /// context), column-vector form.
    pub to_gizmo: Mat4,
}

/// Max's `smoothstep(0, 1, u)`: 0 below, 1 above, the cubic `u² (3 − 2u)` between.
fn smoothstep(u: f32) -> f32 {
    if u <= 0.0 {
        0.0
    } else if u >= 1.0 {
        1.0
    } else {
        u * u * (3.0 - 2.0 * u)
    }
}

/// The wave height at distance `r` from the axis for amplitude `a`.
fn wave(r: f32, a: f32, p: &RippleParams) -> f32 {
    let length = if p.wave_length == 0.0 { 1.0e-7 } else { p.wave_length };
    let decay = p.decay.max(0.0);
    let turns = f64::from(r / length + p.phase);
    (f64::from(a) * (std::f64::consts::TAU * turns).sin() * f64::from(-decay * r.abs()).exp()) as f32
}

/// The amplitude at gizmo-space point `q`.
fn amplitude(q: glam::Vec3, p: &RippleParams) -> f32 {
    if p.amplitude1 == p.amplitude2 {
        return p.amplitude1;
    }
    let len = q.length();
    if len == 0.0 {
        return p.amplitude1;
    }
    let mut u = (f64::from((q.x / len).clamp(-1.0, 1.0)).acos() / std::f64::consts::PI) as f32;
    if u > 0.5 {
        u = 1.0 - u;
    }
    let s = smoothstep(2.0 * u);
    p.amplitude1 * (1.0 - s) + p.amplitude2 * s
}

/// Ripples every vertex of `mesh`.
pub fn ripple(mut mesh: EvalMesh, p: &RippleParams) -> EvalMesh {
    let tm = p.to_gizmo;
    let inv = tm.inverse();
    mesh.map_positions(|v| {
        let mut q = tm.transform_point3(v);
        let a = amplitude(q, p);
        let r = (q.x * q.x + q.y * q.y).sqrt();
        q.z += wave(r, a, p);
        inv.transform_point3(q)
    });
    mesh
}

/// The Ripple's evaluator (it moves every vertex: a selection below is not carried).
pub const RIPPLE: Modifier = Modifier::new(module_path!(), apply, true, Carry::Loses);

/// Parameters animated or unreadable: the topology is known, the positions are not.
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let params = match Params::of(mc.index(), mc.object(), 2) {
        Ok(p) => p,
        Err(e) => return Ok(counts_only(input, format!("Ripple parameters not evaluated: {e}"))),
    };
    let values: Result<Vec<f32>, ParamError> = (0..5).map(|id| params.float(id)).collect();
    let values = match values {
        Ok(v) => v,
        Err(e) => return Ok(counts_only(input, format!("Ripple parameter not evaluated: {e}"))),
    };
    // The simple-modifier frame, as for Bend: gizmo (reference 0), centre (1).
    let p = RippleParams {
        amplitude1: values[0],
        amplitude2: values[1],
        wave_length: values[2],
        phase: values[3],
        decay: values[4],
        to_gizmo: simple_frame(mc.index(), mc.modifier)?,
    };
    Ok(match input {
        Evaluated::Mesh(mesh) => Evaluated::Mesh(ripple(mesh, &p)),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    use crate::eval::mesh::points_with_one_triangle as points;

    fn params() -> RippleParams {
        RippleParams {
            amplitude1: 2.0,
            amplitude2: 2.0,
            wave_length: 8.0,
            phase: 0.0,
            decay: 0.0,
            to_gizmo: Mat4::IDENTITY,
        }
    }

    #[test]
    fn equal_amplitudes_make_concentric_sine_rings() {
        // Wave length 8, amplitude 2: at r = 2 a quarter wave, z += 2·sin(π/2) = 2; at r = 4
        // half a wave, sin(π) = 0; at r = 6 three quarters, z += −2. The distance is taken
        // across Z only: (0, 6, 5) moves like (6, 0, 0).
        let out = ripple(points(&[[2.0, 0.0, 0.0], [0.0, 4.0, 1.0], [0.0, 6.0, 5.0]]), &params());
        let near = |a: Vec3, b: [f32; 3]| (a - Vec3::from_array(b)).length() < 1e-5;
        assert!(near(out.positions[0], [2.0, 0.0, 2.0]), "{:?}", out.positions[0]);
        assert!(near(out.positions[1], [0.0, 4.0, 1.0]), "{:?}", out.positions[1]);
        assert!(near(out.positions[2], [0.0, 6.0, 3.0]), "{:?}", out.positions[2]);
        // Phase 0.25 shifts a quarter wave: at r = 0, z += 2·sin(π/2) = 2.
        let shifted = ripple(points(&[[0.0, 0.0, 0.0]; 3]), &RippleParams { phase: 0.25, ..params() });
        assert!(near(shifted.positions[0], [0.0, 0.0, 2.0]), "{:?}", shifted.positions[0]);
        // Decay 0.5 at r = 2: 2·1·e^(−1) = 0.735759.
        let decayed = ripple(points(&[[2.0, 0.0, 0.0]; 3]), &RippleParams { decay: 0.5, ..params() });
        assert!(near(decayed.positions[0], [2.0, 0.0, 0.735_759]), "{:?}", decayed.positions[0]);
    }

    #[test]
    fn amplitude_one_along_x_amplitude_two_across() {
        // Amplitude 1 = 2, amplitude 2 = 6, r = 2 (a quarter wave, sine 1). On +X: u = 0,
        // s = 0, A = 2. On +Y: u = acos(0)/π = 0.5, doubled 1, s = 1, A = 6. At 60° from X
        // in the XY plane: u = 1/3, doubled 2/3, s = (4/9)(3 − 4/3) = 20/27, A = 2·7/27 +
        // 6·20/27 = 134/27 = 4.962963. On −X: u = 1 folded to 0, A = 2.
        let p = RippleParams { amplitude2: 6.0, ..params() };
        let c = 0.5f32;
        let s = 3f32.sqrt() / 2.0;
        let out = ripple(points(&[[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [2.0 * c, 2.0 * s, 0.0]]), &p);
        assert!((out.positions[0].z - 2.0).abs() < 1e-5, "{:?}", out.positions[0]);
        assert!((out.positions[1].z - 6.0).abs() < 1e-5, "{:?}", out.positions[1]);
        assert!((out.positions[2].z - 134.0 / 27.0).abs() < 1e-5, "{:?}", out.positions[2]);
        let back = ripple(points(&[[-2.0, 0.0, 0.0]; 3]), &p);
        assert!((back.positions[0].z - 2.0).abs() < 1e-5);
        // The gizmo frame: a point 10 units up X in object space with the gizmo moved by
        // (8, 0, 0) is at r = 2 in gizmo space and rises by 2.
        let moved = RippleParams { to_gizmo: Mat4::from_translation(Vec3::new(-8.0, 0.0, 0.0)), ..params() };
        let out = ripple(points(&[[10.0, 0.0, 0.0]; 3]), &moved);
        assert!((out.positions[0] - Vec3::new(10.0, 0.0, 2.0)).length() < 1e-5);
    }
}
