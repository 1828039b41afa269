//! The UVW Map modifier's planar projection of map channel 1 (the one case measured:
//! mtp-target's water_light.max against its NeL export). Every other setting keeps the
//! modifier a pass-through (topology is unchanged either way), and says so in the result,
//! so a mapping this module does not compute is never taken for one it did.
//!
//! Max's rule, as the export shows it: a point goes to the modifier's context space (the
//! 0x2510 matrix of its ModContext in the derived object), then into the gizmo's space —
//! the gizmo controller's transform, turned by π about Z for a planar map (the stored
//! gizmo of water_light is rotated by π while the exported `u` grows with +X), scaled by
//! width (X) and length (Y) — and `u = (x + ½)·U tile`, `v = (y + ½)·V tile`.

use super::Modifier;
use crate::chunk::Chunk;
use crate::eval::context::ModContext;
use crate::eval::mesh::{EvalMesh, MapChannel};
use crate::eval::outcome::{Evaluated, Stop};
use crate::eval::params::Params;
use crate::eval::selection::Carry;
use crate::model::controllers::{position_default, rotation_default, scale_default, LocalTransform};
use crate::model::scene_index::{SceneIndex, SceneObject, OSM_DERIVED};
use glam::{Mat4, Vec2, Vec3};

/// ModContext of one modifier application in a derived object.
const MOD_CONTEXT: u16 = 0x2500;
/// Its transform: four rows of three floats (axes, then translation).
const MOD_CONTEXT_TM: u16 = 0x2510;

/// Old ParamBlock indices of the UVW Map modifier.
const MAP_TYPE: u16 = 0;
const U_TILE: u16 = 1;
const V_TILE: u16 = 2;
const U_FLIP: u16 = 4;
const V_FLIP: u16 = 5;
const CHANNEL_KIND: u16 = 8;
const LENGTH: u16 = 9;
const WIDTH: u16 = 10;
const AXIS: u16 = 12;
const MAP_CHANNEL: u16 = 13;

/// Settings of a planar map this module projects.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Planar {
    /// Point → modifier context space.
    pub context: Mat4,
    /// Gizmo controller transform (before the planar π turn and the size).
    pub gizmo: Mat4,
    /// Gizmo width (X) and length (Y).
    pub size: Vec2,
    /// U and V tiling.
    pub tile: Vec2,
}

impl Planar {
    /// Map coordinates of an object-space point.
    pub fn project(&self, p: Vec3) -> Vec2 {
        let gizmo = self.gizmo
            * Mat4::from_rotation_z(std::f32::consts::PI)
            * Mat4::from_scale(Vec3::new(self.size.x, self.size.y, 1.0));
        let g = gizmo.inverse().transform_point3(self.context.transform_point3(p));
        Vec2::new((g.x + 0.5) * self.tile.x, (g.y + 0.5) * self.tile.y)
    }
}

/// Replaces map channel 1 with the planar projection: one map vertex per mesh vertex,
/// map faces = polygon corners.
pub fn apply_planar(mut mesh: EvalMesh, p: &Planar) -> EvalMesh {
    let vertices = mesh.positions.iter().map(|&v| p.project(v)).collect();
    let faces = mesh.polygons.iter().map(|f| f.corners.clone()).collect();
    mesh.uv = Some(MapChannel { vertices, faces });
    mesh
}

/// The planar settings of UVW Map `modifier`, or why it is not projected.
pub fn planar_settings(index: &SceneIndex<'_>, modifier: &SceneObject<'_>) -> Result<Planar, String> {
    let p = Params::of(index, modifier, 1).map_err(|e| e.to_string())?;
    let int = |id, default| p.int_or(id, default).map_err(|e| e.to_string());
    let float = |id| p.float(id).map_err(|e| e.to_string());
    if int(MAP_TYPE, 0)? != 0 {
        return Err("map type other than planar".into());
    }
    if int(AXIS, 2)? != 2 || int(U_FLIP, 0)? != 0 || int(V_FLIP, 0)? != 0 {
        return Err("axis other than Z or flipped".into());
    }
    if int(CHANNEL_KIND, 0)? != 0 || int(MAP_CHANNEL, 1)? != 1 {
        return Err("channel other than map channel 1".into());
    }
    let size = Vec2::new(float(WIDTH)?, float(LENGTH)?);
    if !(size.x.is_normal() && size.y.is_normal()) {
        return Err(format!("gizmo size {size} not invertible"));
    }
    let tile = Vec2::new(float(U_TILE)?, float(V_TILE)?);
    let prs = modifier.reference(0).and_then(|i| index.get(i)).ok_or("no gizmo controller")?;
    let (scale, scale_axis) = scale_default(index, prs.reference(2)).map_err(|e| e.to_string())?;
    let gizmo = LocalTransform {
        translation: position_default(index, prs.reference(0)).map_err(|e| e.to_string())?,
        rotation: rotation_default(index, prs.reference(1)).map_err(|e| e.to_string())?.normalize(),
        scale,
        scale_axis,
    }
    .matrix();
    if gizmo.determinant().abs() < f32::EPSILON {
        return Err("gizmo transform not invertible".into());
    }
    let context = mod_context_tm(index, modifier.storage_index).ok_or("no ModContext transform")?;
    Ok(Planar { context, gizmo, size, tile })
}

/// The ModContext transform of `modifier` in the derived object that applies it: the
/// derived object's ModContexts follow its modifier references in order.
fn mod_context_tm(index: &SceneIndex<'_>, modifier: usize) -> Option<Mat4> {
    let derived = index
        .objects
        .iter()
        .find(|o| o.chunk.id == OSM_DERIVED && o.references().iter().any(|(_, t)| *t == Some(modifier)))?;
    let position = derived.references().iter().filter_map(|(_, t)| *t).position(|t| t == modifier)?;
    let contexts: Vec<&Chunk<'_>> = derived.chunk.children().iter().filter(|c| c.id == MOD_CONTEXT).collect();
    let context = *contexts.get(position)?;
    context.child(MOD_CONTEXT_TM)?.payload()?; // absent here means no transform, not identity
    let m = crate::eval::derived::mod_context_tm(Some(context))?;
    (m.determinant().abs() >= f32::EPSILON && m.is_finite()).then_some(m)
}

/// The UVW Map's evaluator: topology passes through; a planar map of the measured kind is
/// projected.
pub const UVW_MAP: Modifier = Modifier::new(module_path!(), apply, true, Carry::Keeps);

/// Projects map channel 1 when the settings are the planar case read here.
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    Ok(match input {
        Evaluated::Mesh(mesh) => match planar_settings(mc.index(), mc.object()) {
            Ok(planar) => Evaluated::Mesh(apply_planar(mesh, &planar)),
            Err(_) => Evaluated::Mesh(mesh),
        },
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::mesh::{FaceRule, Polygon};

    #[test]
    fn planar_by_hand() {
        // Gizmo 200 wide (X) × 100 long (Y), tiling 4 × 2, identity context and controller:
        // the π turn maps (x, y) to (−x, −y) in gizmo space, so a point at (50, 25) goes
        // to (−0.25, −0.25) → u = (−0.25 + ½)·4 = 1, v = (−0.25 + ½)·2 = 0.5.
        let p = Planar {
            context: Mat4::IDENTITY,
            gizmo: Mat4::IDENTITY,
            size: Vec2::new(200.0, 100.0),
            tile: Vec2::new(4.0, 2.0),
        };
        assert!(p.project(Vec3::new(50.0, 25.0, 7.0)).abs_diff_eq(Vec2::new(1.0, 0.5), 1e-6));
        // A controller turned by π (water_light's gizmo) cancels the turn: (50, 25) →
        // (0.25, 0.25) → u = 3, v = 1.5. A context translation of (−10, 0, 0) moves the
        // point to (40, 25) first: u = (0.2 + ½)·4 = 2.8.
        let turned = Planar { gizmo: Mat4::from_rotation_z(std::f32::consts::PI), ..p };
        assert!(turned.project(Vec3::new(50.0, 25.0, 0.0)).abs_diff_eq(Vec2::new(3.0, 1.5), 1e-5));
        let moved = Planar { context: Mat4::from_translation(Vec3::new(-10.0, 0.0, 0.0)), ..turned };
        assert!(moved.project(Vec3::new(50.0, 25.0, 0.0)).abs_diff_eq(Vec2::new(2.8, 1.5), 1e-5));
        // Applied to a triangle: one map vertex per vertex, map faces = corners.
        let mesh = EvalMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            polygons: vec![Polygon::new(vec![0, 1, 2])],
            uv: None,
            rule: FaceRule::Triangles,
        };
        let out = apply_planar(mesh, &p);
        let uv = out.uv.unwrap();
        assert_eq!(uv.faces, vec![vec![0, 1, 2]]);
        assert!(uv.vertices[0].abs_diff_eq(Vec2::new(2.0, 1.0), 1e-6));
    }
}
