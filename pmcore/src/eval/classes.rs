//! Class IDs evaluation knows (matched by Class ID, never by the localized display name),
//! and what each does to a mesh.

/// Superclass of geometric objects.
pub const GEOM_OBJECT: u32 = 0x10;
/// Superclass of shapes (splines).
pub const SHAPE: u32 = 0x40;
/// Superclass of object-space modifiers.
pub const OS_MODIFIER: u32 = 0x810;
/// Superclass of world-space modifiers.
pub const WS_MODIFIER: u32 = 0x820;

/// Editable Mesh (tri object).
pub const EDITABLE_MESH: [u32; 2] = [0xe44f_10b3, 0];
/// Editable Poly.
pub const EDITABLE_POLY: [u32; 2] = [0x1bf8_338d, 0x192f_6098];
/// Box.
pub const BOX: [u32; 2] = [0x0000_0010, 0];
/// Sphere.
pub const SPHERE: [u32; 2] = [0x0000_0011, 0];
/// Cylinder.
pub const CYLINDER: [u32; 2] = [0x0000_0012, 0];
/// Torus.
pub const TORUS: [u32; 2] = [0x0000_0020, 0];
/// Cone.
pub const CONE: [u32; 2] = [0xa86c_23dd, 0];
/// Tube.
pub const TUBE: [u32; 2] = [0x0000_7b21, 0];
/// GeoSphere.
pub const GEOSPHERE: [u32; 2] = [0, 0x0000_7f9e];
/// Plane.
pub const PLANE: [u32; 2] = [0x081f_1dfc, 0x7756_6f65];
/// Pyramid (`super::pyramid`).
pub const PYRAMID: [u32; 2] = [0x76bf_318a, 0x4bf3_7b10];

/// Target object (of a target camera or light): geometry superclass, no mesh; Max does
/// not count it.
pub const TARGET_OBJECT: [u32; 2] = [0x0000_1020, 0];

/// Cloth: moves vertices, and outputs a tri object (measured: `wild/radobaychev__couch.max`,
/// seven Editable Poly cushions of 280 quads under Cloth alone count 7 × 560 faces).
pub const CLOTH: [u32; 2] = [0x67c1_cd47, 0x7782_f878];

/// Shell.
pub const SHELL: [u32; 2] = [0x3b9b_1a16, 0x6d84_e8d0];

/// Bone object.
pub const BONE: [u32; 2] = [0x28bf_6e8d, 0x2ecc_a840];

/// Lathe (modifier over a shape: `super::lathe`).
pub const LATHE: [u32; 2] = [0x0000_00b0, 0];

/// Line (spline shape object).
pub const LINE: [u32; 2] = [0x0000_1040, 0];

/// Edit Poly (modifier).
pub const EDIT_POLY_MOD: [u32; 2] = [0x79aa_6e1d, 0x71a0_75b7];

/// Bend (modifier; the Box object shares the id under another superclass).
pub const BEND_MOD: [u32; 2] = [0x0000_0010, 0];

/// Taper (modifier; the Torus object shares the id under another superclass).
pub const TAPER_MOD: [u32; 2] = [0x0000_0020, 0];

/// Ripple (modifier; `super::ripple`).
pub const RIPPLE_MOD: [u32; 2] = [0x0000_0045, 0];

/// Mirror (modifier).
pub const MIRROR_MOD: [u32; 2] = [0xef92_aa7c, 0x511b_be75];

/// Edit Mesh (modifier).
pub const EDIT_MESH_MOD: [u32; 2] = [0x0000_0050, 0];

/// MeshSmooth.
pub const MESHSMOOTH: [u32; 2] = [0x0000_0032, 0x0000_7f9e];

/// Symmetry.
pub const SYMMETRY: [u32; 2] = [0x2d7e_702b, 0x0be4_1a6e];

/// TurboSmooth.
pub const TURBOSMOOTH: [u32; 2] = [0x0d72_7b3e, 0x491d_29a7];

/// What a modifier does to the topology of its input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModifierRule {
    /// Moves vertices, mapping, selection, materials or normals only: vertex and face
    /// structure pass through.
    PassThrough,
    /// Catmull-Clark subdivision (TurboSmooth).
    TurboSmooth,
    /// Converts the input to a poly object.
    ToPoly,
    /// Converts the input to a tri object.
    ToMesh,
    /// Shell (inner and outer skins joined by rims).
    Shell,
    /// Symmetry (slice, mirror, weld).
    Symmetry,
    /// Edit Poly: a poly object out, counts kept when its operations keep them.
    EditPoly,
    /// MeshSmooth (NURMS / quad output: Catmull-Clark topology, a tri object out).
    MeshSmooth,
    /// Edit Mesh: its MeshDelta replayed where the records are known, a tri object out.
    EditMesh,
    /// Bend (`super::deform`).
    Bend,
    /// Taper (`super::deform`).
    Taper,
    /// Mirror (`super::deform`).
    Mirror,
    /// Ripple (`super::ripple`).
    Ripple,
}

/// Base classes whose builder follows Max's own vertex and face order (checked against an
/// export Max wrote: [`super::primitives::box_mesh`]); Edit Poly selections and offsets
/// over other builders would index the wrong parts.
pub const BUILT_IN_MAX_ORDER: &[[u32; 2]] = &[BOX];

/// Base classes whose tri mesh is built in Max's order (checked: [`super::primitives::sphere_mesh`]
/// on `Bowl.FBX`) but whose own conversion to poly is not: Edit Mesh records index them, an
/// Edit Poly directly on them is not trusted with indices.
pub const TRI_BUILT_IN_MAX_ORDER: &[[u32; 2]] = &[SPHERE];

/// Base classes whose conversion to a poly object (what an Edit Poly directly on them
/// receives) is built in Max's order ([`super::primitives::cylinder_poly`], checked on
/// `wild/snubblejr__man.max`'s cylinder).
pub const POLY_BUILT_IN_MAX_ORDER: &[[u32; 2]] = &[CYLINDER, CONE];

impl ModifierRule {
    /// Whether the modifier's output keeps its input's vertex and face indices (then
    /// appends, as Edit Poly's replayed operations and Edit Mesh do; Bend and Taper only
    /// move vertices).
    pub fn keeps_indices(self) -> bool {
        matches!(
            self,
            ModifierRule::PassThrough
                | ModifierRule::ToPoly
                | ModifierRule::ToMesh
                | ModifierRule::EditPoly
                | ModifierRule::EditMesh
                | ModifierRule::Bend
                | ModifierRule::Taper
                | ModifierRule::Ripple
        )
    }
}

/// UVW Map (topology passes through; [`super::uvw_map`] projects its planar case).
pub const UVW_MAP: [u32; 2] = [0x000f_72b1, 0];

/// Modifiers whose topology passes through, by Class ID (ids as the corpus class
/// directories list them; the names are only comments, they are localized in the files).
pub const PASS_THROUGH: &[([u32; 2], &str)] = &[
    ([0x02df_2e3a, 0x72ba_4e1f], "Unwrap UVW"),
    ([0x000f_72b1, 0], "UVW Map"),
    ([0x0095_c723, 0x0001_5666], "Skin"),
    ([0xf997_b124, 0], "Noise"),
    ([0x000f_8613, 0], "Smooth"),
    ([0x2132_5596, 0x2cd1_0bd8], "FFD 4x4x4"),
    ([0x2521_5824, 0], "XForm"),
    ([0x0000_0047, 0], "Wave"),
    ([0x0000_0090, 0], "Twist"),
    ([0x000f_8612, 0], "Material"),
    ([0x000f_8614, 0], "Normal"),
    ([0x0000_0064, 0x0000_7f9e], "Relax"),
    ([0x0001_00b0, 0x00bc_2d21], "Stretch"),
    ([0x0dad_ada6, 0], "MapScaler"),
    ([0x31f9_c666, 0x03b4_a588], "Select By Channel"),
    ([0x73d8_ff93, 0], "Mesh Select"),
    ([0xde17_a34e, 0x8a41_e2a0], "Spherify"),
    ([0x36d0_4fa5, 0x5007_27b3], "Melt"),
    ([0x0000_0b00, 0x57da_4442], "Conform"),
    ([0x0001_10b4, 0x0000_7f9e], "PathDeform (WSM)"),
];

/// The rule of a modifier class, `None` when evaluation does not know it.
pub fn modifier_rule(class_id: [u32; 2]) -> Option<ModifierRule> {
    if PASS_THROUGH.iter().any(|(id, _)| *id == class_id) {
        return Some(ModifierRule::PassThrough);
    }
    match class_id {
        TURBOSMOOTH => Some(ModifierRule::TurboSmooth),
        CLOTH => Some(ModifierRule::ToMesh),
        SHELL => Some(ModifierRule::Shell),
        SYMMETRY => Some(ModifierRule::Symmetry),
        EDIT_POLY_MOD => Some(ModifierRule::EditPoly),
        MESHSMOOTH => Some(ModifierRule::MeshSmooth),
        EDIT_MESH_MOD => Some(ModifierRule::EditMesh),
        BEND_MOD => Some(ModifierRule::Bend),
        TAPER_MOD => Some(ModifierRule::Taper),
        MIRROR_MOD => Some(ModifierRule::Mirror),
        RIPPLE_MOD => Some(ModifierRule::Ripple),
        _ => None,
    }
}
