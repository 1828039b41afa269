//! Every Class ID and superclass id the code names, each written once. A leaf module: the
//! model layer reads it without reaching the evaluators the [catalogue](super) points to.
//! What a class *is* (its role, evaluator, effect, typed model) is its row in
//! [`super::CATALOGUE`]; matching is always by these ids, never by a display name.

/// Superclass ids (Max SDK `SClass_ID`).
pub(crate) mod superclass {
    /// A scene node.
    pub(crate) const NODE: u32 = 0x0001;
    /// Old ParamBlock.
    pub(crate) const PARAM_BLOCK: u32 = 0x0008;
    /// Geometric object.
    pub(crate) const GEOM_OBJECT: u32 = 0x0010;
    /// Camera.
    pub(crate) const CAMERA: u32 = 0x0020;
    /// Light.
    pub(crate) const LIGHT: u32 = 0x0030;
    /// Shape (splines).
    pub(crate) const SHAPE: u32 = 0x0040;
    /// Helper.
    pub(crate) const HELPER: u32 = 0x0050;
    /// Space-warp object; Max also saves systems under it (the Biped system 0x9155 in
    /// every Biped scene, `biped/…/Female_Adult_16.max`, `wild/tae8838__player.max`).
    pub(crate) const WSM_OBJECT: u32 = 0x0060;
    /// ParamBlock2.
    pub(crate) const PARAM_BLOCK2: u32 = 0x0082;
    /// The scene singleton and other scene-level objects.
    pub(crate) const SCENE: u32 = 0x0100;
    /// Track view node.
    pub(crate) const TRACK_VIEW: u32 = 0x0200;
    /// Object-space modifier.
    pub(crate) const OS_MODIFIER: u32 = 0x0810;
    /// World-space modifier.
    pub(crate) const WS_MODIFIER: u32 = 0x0820;
    /// Material.
    pub(crate) const MATERIAL: u32 = 0x0c00;
    /// Texture map.
    pub(crate) const TEXTURE: u32 = 0x0c10;
    /// Utility.
    pub(crate) const UTILITY: u32 = 0x1020;
    /// Render effect (render element).
    pub(crate) const RENDER_EFFECT: u32 = 0x1150;
    /// Custom attribute.
    pub(crate) const CUSTOM_ATTRIBUTE: u32 = 0x1160;
    /// The made-up superclass of the synthetic demo files' placeholder scene object.
    pub(crate) const DEMO_SCENE: u32 = 0x1000;
    /// Render environment.
    pub(crate) const RENDER_ENVIRONMENT: u32 = 0x1010;
    /// Float controller.
    pub(crate) const CTRL_FLOAT: u32 = 0x9003;
    /// Matrix3 (transform) controller.
    pub(crate) const CTRL_MATRIX3: u32 = 0x9008;
    /// Position controller.
    pub(crate) const CTRL_POSITION: u32 = 0x900b;
    /// Rotation controller.
    pub(crate) const CTRL_ROTATION: u32 = 0x900c;
    /// Scale controller.
    pub(crate) const CTRL_SCALE: u32 = 0x900d;
    /// Point3 (and colour) controller.
    pub(crate) const CTRL_POINT3: u32 = 0x9005;
}

// Scene structure.
/// OSM Derived: a node's object with its object-space modifiers (chunk id 0x2032).
pub(crate) const OSM_DERIVED: [u32; 2] = [0x2926_3a68, 0x405f_22f5];
/// WSM Derived: a node's object with its world-space modifiers (chunk id 0x2033).
pub(crate) const WSM_DERIVED: [u32; 2] = [0x4ec1_3906, 0x5578_130e];
/// The placeholder scene object of the synthetic demo files (a made-up class).
pub(crate) const DEMO_SCENE: [u32; 2] = [0x2000, 0];
/// Custom attribute (`custattribs.dlo`).
pub(crate) const CUSTOM_ATTRIBUTE: [u32; 2] = [0x5ddb_3626, 0x2336_6a6a];
/// VRayZDepth render element.
pub(crate) const VRAY_Z_DEPTH: [u32; 2] = [0x4e8c_5a20, 0x0e6a_2bb5];
/// The scene singleton (`SceneImpl`).
pub(crate) const SCENE_IMPL: [u32; 2] = [0x2222, 0];
/// The scene material library (`MtlBaseLib`).
pub(crate) const MTL_BASE_LIB: [u32; 2] = [0x3333, 0];
/// A scene node (`NodeImpl`).
pub(crate) const NODE_IMPL: [u32; 2] = [1, 0];
/// The root node.
pub(crate) const ROOT_NODE: [u32; 2] = [2, 0];
/// Track view node.
pub(crate) const TRACK_VIEW_NODE: [u32; 2] = [0x8d73_b8aa, 0x90f2_ee71];
/// ParamBlock2.
pub(crate) const PARAM_BLOCK2: [u32; 2] = [0x82, 0];
/// Old ParamBlock.
pub(crate) const PARAM_BLOCK: [u32; 2] = [8, 0];
/// RenderEnvironment: holds the render settings.
pub(crate) const RENDER_ENVIRONMENT: [u32; 2] = [0xee44_8b23, 0];
/// The MAXScript utility class that owns NeL AppData.
pub(crate) const MAXSCRIPT_UTILITY: [u32; 2] = [0x04d6_4858, 0x16d1_751d];

// Controllers.
/// Position/Rotation/Scale transform controller.
pub(crate) const PRS: [u32; 2] = [0x2005, 0];
/// LookAt transform controller.
pub(crate) const LOOK_AT: [u32; 2] = [0x2006, 0];
/// Position XYZ controller (three float sub-controllers).
pub(crate) const POSITION_XYZ: [u32; 2] = [0x118f_7e02, 0xffee_238a];
/// Scale XYZ controller (three float sub-controllers; scale axis identity).
pub(crate) const SCALE_XYZ: [u32; 2] = [0x118f_7c01, 0xfeee_238b];
/// Euler XYZ rotation controller (three float sub-controllers, radians).
pub(crate) const EULER_XYZ: [u32; 2] = [0x2012, 0];
/// Bezier Float controller.
pub(crate) const BEZIER_FLOAT: [u32; 2] = [0x2007, 0];
/// Bezier Position controller.
pub(crate) const BEZIER_POSITION: [u32; 2] = [0x2008, 0];
/// Bezier Scale controller.
pub(crate) const BEZIER_SCALE: [u32; 2] = [0x2010, 0];
/// Bezier Point3 controller (superclass 0x9005; key table 0x2526, as Bezier Position).
pub(crate) const BEZIER_POINT3: [u32; 2] = [0x200a, 0];
/// Bezier Color controller (superclass 0x9005).
pub(crate) const BEZIER_COLOR: [u32; 2] = [0x2011, 0];
/// TCB Position controller (key table 0x2521, `model::keys_tcb`).
pub(crate) const TCB_POSITION: [u32; 2] = [0x0044_2312, 0];
/// TCB Rotation controller (key table 0x2522).
pub(crate) const TCB_ROTATION: [u32; 2] = [0x0044_2313, 0];
/// TCB Scale controller (key table 0x2523).
pub(crate) const TCB_SCALE: [u32; 2] = [0x0044_2315, 0];
/// Linear Position controller (key table 0x2513, `model::keys_linear`).
pub(crate) const LINEAR_POSITION: [u32; 2] = [0x2002, 0];
/// Linear Rotation controller (key table 0x2514).
pub(crate) const LINEAR_ROTATION: [u32; 2] = [0x2003, 0];
/// Linear Scale controller (key table 0x2515).
pub(crate) const LINEAR_SCALE: [u32; 2] = [0x2004, 0];
/// Float List controller (`model::list_controllers`).
pub(crate) const FLOAT_LIST: [u32; 2] = [0x4b4b_1000, 0];
/// Position List controller.
pub(crate) const POSITION_LIST: [u32; 2] = [0x4b4b_1002, 0];
/// Rotation List controller.
pub(crate) const ROTATION_LIST: [u32; 2] = [0x4b4b_1003, 0];
/// Scale List controller.
pub(crate) const SCALE_LIST: [u32; 2] = [0x4b4b_1004, 0];

// IK (issue 41: the `ik` triage class). Measured in the class directories of
// `wild/tae8838__green*.max` (superclass 0x9008).
/// IK controller of a bone driven by an IK chain.
pub const IK_CONTROL: [u32; 2] = [0x0e6f_5815, 0x717f_99a4];
/// HI IK solver chain controller.
pub const IK_CHAIN_CONTROL: [u32; 2] = [0x7872_4378, 0x008a_4fd9];

/// Link Constraint (superclass 0x9008): a PRS offset (ref 0) on the node a ParamBlock2
/// (ref 2) names; the LD35 `B_*` helpers (`wild/tae8838__*.max`).
pub const LINK_CONSTRAINT: [u32; 2] = [0x873f_e764, 0xaabe_8601];

// Biped (design §10).
/// Biped system root (superclass Object): the one that carries the figure era.
pub(crate) const BIPED_SYSTEM: [u32; 2] = [0x9155, 0];
/// Biped centre-of-mass controller.
pub(crate) const BIPED_COM: [u32; 2] = [0x9156, 0];
/// Biped per-part controller.
pub(crate) const BIPED_PART: [u32; 2] = [0x9154, 0];
/// Biped per-part geometry.
pub(crate) const BIPED_GEOMETRY: [u32; 2] = [0x9125, 0];

// Materials and maps.
/// Standard material.
pub(crate) const STANDARD_MATERIAL: [u32; 2] = [0x0002, 0];
/// Multi/Sub-Object material.
pub(crate) const MULTI_MATERIAL: [u32; 2] = [0x0200, 0];
/// Bitmap texture.
pub(crate) const BITMAP_TEXTURE: [u32; 2] = [0x0240, 0];
/// NeL Material, the scripted material of the NeL / Ryzom 3ds Max exporter (every revision
/// of its script in the NeL corpus keeps this Class ID).
pub(crate) const NEL_MATERIAL: [u32; 2] = [0x64c7_5fec, 0x222b_9eb9];

// Objects.
/// Editable Mesh (tri object).
pub(crate) const EDITABLE_MESH: [u32; 2] = [0xe44f_10b3, 0];
/// Editable Poly.
pub(crate) const EDITABLE_POLY: [u32; 2] = [0x1bf8_338d, 0x192f_6098];
/// Box (the Bend modifier shares the id under another superclass).
pub(crate) const BOX: [u32; 2] = [0x0000_0010, 0];
/// Sphere.
pub(crate) const SPHERE: [u32; 2] = [0x0000_0011, 0];
/// Cylinder.
pub(crate) const CYLINDER: [u32; 2] = [0x0000_0012, 0];
/// Torus (the Taper modifier shares the id under another superclass).
pub(crate) const TORUS: [u32; 2] = [0x0000_0020, 0];
/// Cone.
pub(crate) const CONE: [u32; 2] = [0xa86c_23dd, 0];
/// Tube.
pub(crate) const TUBE: [u32; 2] = [0x0000_7b21, 0];
/// GeoSphere.
pub(crate) const GEOSPHERE: [u32; 2] = [0, 0x0000_7f9e];
/// Plane.
pub(crate) const PLANE: [u32; 2] = [0x081f_1dfc, 0x7756_6f65];
/// Pyramid.
pub(crate) const PYRAMID: [u32; 2] = [0x76bf_318a, 0x4bf3_7b10];
/// Teapot (the SDK's one class using both id words).
pub(crate) const TEAPOT: [u32; 2] = [0xacad_13d3, 0xacad_26d9];
/// ChamferBox (extended primitives).
pub(crate) const CHAMFER_BOX: [u32; 2] = [0x1ad7_3f40, 0x48ea_0f97];
/// Hose (extended primitives).
pub(crate) const HOSE: [u32; 2] = [0x69f9_6a5d, 0x235c_430a];
/// Bone object.
pub(crate) const BONE: [u32; 2] = [0x28bf_6e8d, 0x2ecc_a840];
/// Hedra.
pub(crate) const HEDRA: [u32; 2] = [0xf21c_5e23, 0];
/// ProBoolean (keeps its result mesh).
pub(crate) const PROBOOLEAN: [u32; 2] = [0x31ce_a620, 0x2257_f993];
/// Target object (of a target camera or light): geometry superclass, no mesh.
pub(crate) const TARGET_OBJECT: [u32; 2] = [0x0000_1020, 0];
/// Line (spline shape object).
pub(crate) const LINE: [u32; 2] = [0x0000_1040, 0];
/// Editable Spline (SplineShape object: the Line's shape data without the wrapper).
pub(crate) const SPLINE_SHAPE: [u32; 2] = [0x0000_000a, 0];
/// Rectangle (procedural shape: length, width, corner radius).
pub(crate) const RECTANGLE: [u32; 2] = [0x0000_1065, 0];
/// Circle (procedural shape: radius).
pub(crate) const CIRCLE: [u32; 2] = [0x0000_1999, 0];

// Modifiers.
/// Bend.
pub(crate) const BEND: [u32; 2] = [0x0000_0010, 0];
/// Taper.
pub(crate) const TAPER: [u32; 2] = [0x0000_0020, 0];
/// Ripple.
pub(crate) const RIPPLE: [u32; 2] = [0x0000_0045, 0];
/// Mirror.
pub(crate) const MIRROR: [u32; 2] = [0xef92_aa7c, 0x511b_be75];
/// Edit Mesh.
pub(crate) const EDIT_MESH: [u32; 2] = [0x0000_0050, 0];
/// Edit Poly.
pub(crate) const EDIT_POLY: [u32; 2] = [0x79aa_6e1d, 0x71a0_75b7];
/// MeshSmooth.
pub(crate) const MESHSMOOTH: [u32; 2] = [0x0000_0032, 0x0000_7f9e];
/// TurboSmooth.
pub(crate) const TURBOSMOOTH: [u32; 2] = [0x0d72_7b3e, 0x491d_29a7];
/// Symmetry.
pub(crate) const SYMMETRY: [u32; 2] = [0x2d7e_702b, 0x0be4_1a6e];
/// Shell.
pub(crate) const SHELL: [u32; 2] = [0x3b9b_1a16, 0x6d84_e8d0];
/// Cloth.
pub const CLOTH: [u32; 2] = [0x67c1_cd47, 0x7782_f878];
/// Lathe (over a shape).
pub const LATHE: [u32; 2] = [0x0000_00b0, 0];
/// Extrude.
pub(crate) const EXTRUDE: [u32; 2] = [0x0000_00a0, 0];
/// Bevel.
pub(crate) const BEVEL: [u32; 2] = [0x0000_1017, 0x0000_7f9e];
/// Bevel Profile.
pub(crate) const BEVEL_PROFILE: [u32; 2] = [0x7a42_02d0, 0x1196_1722];
/// UVW Map.
pub(crate) const UVW_MAP: [u32; 2] = [0x000f_72b1, 0];
/// Unwrap UVW.
pub(crate) const UNWRAP_UVW: [u32; 2] = [0x02df_2e3a, 0x72ba_4e1f];
/// Normal.
pub(crate) const NORMAL: [u32; 2] = [0x000f_8614, 0];
/// Skin.
pub const SKIN: [u32; 2] = [0x0095_c723, 0x0001_5666];
/// Noise.
pub(crate) const NOISE: [u32; 2] = [0xf997_b124, 0];
/// Smooth.
pub(crate) const SMOOTH: [u32; 2] = [0x000f_8613, 0];
/// FFD 4x4x4.
pub(crate) const FFD_4X4X4: [u32; 2] = [0x2132_5596, 0x2cd1_0bd8];
/// XForm.
pub(crate) const XFORM: [u32; 2] = [0x2521_5824, 0];
/// Wave.
pub(crate) const WAVE: [u32; 2] = [0x0000_0047, 0];
/// Twist.
pub(crate) const TWIST: [u32; 2] = [0x0000_0090, 0];
/// Material (modifier).
pub(crate) const MATERIAL_MODIFIER: [u32; 2] = [0x000f_8612, 0];
/// Relax.
pub(crate) const RELAX: [u32; 2] = [0x0000_0064, 0x0000_7f9e];
/// Stretch.
pub(crate) const STRETCH: [u32; 2] = [0x0001_00b0, 0x00bc_2d21];
/// MapScaler.
pub(crate) const MAP_SCALER: [u32; 2] = [0x0dad_ada6, 0];
/// Select By Channel.
pub(crate) const SELECT_BY_CHANNEL: [u32; 2] = [0x31f9_c666, 0x03b4_a588];
/// Mesh Select.
pub(crate) const MESH_SELECT: [u32; 2] = [0x73d8_ff93, 0];
/// Spherify.
pub(crate) const SPHERIFY: [u32; 2] = [0xde17_a34e, 0x8a41_e2a0];
/// Melt.
pub(crate) const MELT: [u32; 2] = [0x36d0_4fa5, 0x5007_27b3];
/// Conform.
pub(crate) const CONFORM: [u32; 2] = [0x0000_0b00, 0x57da_4442];
/// PathDeform (WSM).
pub(crate) const PATH_DEFORM_WSM: [u32; 2] = [0x0001_10b4, 0x0000_7f9e];
/// Edit Normals.
pub(crate) const EDIT_NORMALS: [u32; 2] = [0x1af5_2e8b, 0x38d4_0f0e];
/// Map Extender (`mapext198m3.dlm`, design §9 T3 caveats).
pub(crate) const MAP_EXTENDER: [u32; 2] = [0x2ec8_2081, 0x045a_6271];
