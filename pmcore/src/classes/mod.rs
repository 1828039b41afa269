//! The class catalogue: every class the code knows, keyed by Class ID and superclass, with
//! its names, its role, the evaluator it uses, what it does to geometry and its typed model.
//! The typed model's registry ([`crate::model::registry`]), the evaluator
//! ([`crate::eval::stack`]), the summary exporter and `pmref` read it; no other list of
//! Class IDs exists. Matching is always by Class ID ([`ids`]): the names here are only for
//! messages (the files' own names are localized).
//!
//! Adding a modifier: one file under `eval/modifier/` exporting its [`Modifier`], and one
//! row below naming it (`docs/architecture.md`).

pub mod ids;

use crate::eval::modifier::{self as m, Modifier, ShapeModifier};
use crate::eval::primitive::{self as p, Primitive};
use ids::superclass as sc;

/// Classes with their own typed chunks or typed accessors in the typed model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TypedClass {
    /// The builtin scene singleton (0x2222:0, superclass 0x100).
    SceneImpl,
    /// A scene node (1:0, superclass 1): version, parent, name.
    NodeImpl,
    /// The root node (2:0, superclass 1).
    RootNode,
    /// Track view node (0x8d73b8aa:0x90f2ee71, superclass 0x200).
    TrackViewNode,
    /// Position/Rotation/Scale transform controller (0x2005:0, superclass 0x9008).
    Prs,
    /// LookAt transform controller (0x2006:0, superclass 0x9008).
    LookAt,
    /// ParamBlock2 (0x82:0, superclass 0x82): parameter records, header, tables.
    ParamBlock2,
    /// Old ParamBlock (8:0, superclass 8): parameters by index.
    ParamBlock,
    /// Editable Poly (0x1bf8338d:0x192f6098, superclass 0x10): geometry arrays.
    EditablePoly,
    /// Editable Mesh / TriObject (0xe44f10b3:0, superclass 0x10): geometry arrays.
    EditableMesh,
    /// A keyframe controller (Linear, Bezier, TCB): key table, default value, time range
    /// (`model::object_parts::keyframer`, `model::key_records`).
    Keyframer,
}

/// What a class is in a scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Scene structure (the scene singleton, its material library, track view).
    Scene,
    /// A scene node.
    Node,
    /// An animation controller.
    Controller,
    /// A parameter block.
    ParamBlock,
    /// A geometric object.
    Object,
    /// A spline shape.
    Shape,
    /// A modifier (object- or world-space).
    Modifier,
    /// A material.
    Material,
    /// A texture map.
    Texture,
    /// A utility plug-in's data.
    Utility,
    /// Render settings.
    Environment,
    /// A render effect or element.
    RenderEffect,
    /// A custom attribute.
    Attribute,
    /// A derived object: a node's object with its modifiers.
    Derived,
}

/// The evaluator a class uses.
#[derive(Clone, Copy)]
pub(crate) enum Evaluator {
    /// None: evaluation stops at it, named (or leaves it out by Max's rules).
    None,
    /// A base object's builder (`eval/primitive/`).
    Object(&'static Primitive),
    /// A modifier (`eval/modifier/`).
    Modifier(&'static Modifier),
    /// A modifier over the spline shape directly under it (`eval/modifier/`).
    OverShape(&'static ShapeModifier),
}

/// What a modifier does to geometry, as the exporters and comparisons need it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Effect {
    /// Its output is geometry whatever its input: a shape under it is counted under Objects
    /// by Max. Measured: with this set the categories of 235 of 236 readable real files
    /// agree with Max's Scene Totals; shapes under only Bend / Noise / UVW Map / XForm / FFD
    /// / Wave / Squeeze / Melt never occur without one of these, and shapes without any
    /// modifier (renderable or not) are always Shapes.
    pub makes_geometry: bool,
    /// It moves vertices and evaluation applies it as topology pass-through (or does not
    /// compute its output: Cloth): a node under it has Max's counts but not Max's positions.
    pub moves_vertices: bool,
    /// Its topology passes through (vertex and face structure unchanged).
    pub passes_through: bool,
}

impl Effect {
    const NONE: Effect = Effect { makes_geometry: false, moves_vertices: false, passes_through: false };
    const MAKES_GEOMETRY: Effect = Effect { makes_geometry: true, ..Effect::NONE };
    const PASSES_THROUGH: Effect = Effect { passes_through: true, ..Effect::NONE };
    const DEFORMS: Effect = Effect { moves_vertices: true, passes_through: true, ..Effect::NONE };
}

/// One class.
#[derive(Clone, Copy)]
pub struct Class {
    /// Class ID.
    pub id: [u32; 2],
    /// Superclass.
    pub superclass: u32,
    /// English display name (informative only: files store localized names).
    pub name: &'static str,
    /// Role.
    pub(crate) role: Role,
    /// Its evaluator.
    pub(crate) evaluator: Evaluator,
    /// What it does to geometry.
    pub(crate) effect: Effect,
    /// Its typed model, when it has one.
    pub typed: Option<TypedClass>,
}

const fn row(id: [u32; 2], superclass: u32, name: &'static str, role: Role) -> Class {
    Class { id, superclass, name, role, evaluator: Evaluator::None, effect: Effect::NONE, typed: None }
}

const fn typed_row(id: [u32; 2], superclass: u32, name: &'static str, role: Role, t: TypedClass) -> Class {
    Class { typed: Some(t), ..row(id, superclass, name, role) }
}

const fn object_row(id: [u32; 2], name: &'static str, e: &'static Primitive) -> Class {
    Class { evaluator: Evaluator::Object(e), ..row(id, sc::GEOM_OBJECT, name, Role::Object) }
}

const fn modifier_row(id: [u32; 2], name: &'static str, e: Option<&'static Modifier>, effect: Effect) -> Class {
    let evaluator = match e {
        Some(e) => Evaluator::Modifier(e),
        None => Evaluator::None,
    };
    Class { evaluator, effect, ..row(id, sc::OS_MODIFIER, name, Role::Modifier) }
}

/// Every class the code knows.
pub(crate) const CATALOGUE: &[Class] = &[
    // Scene structure and the typed model.
    row(ids::OSM_DERIVED, 0, "OSM Derived", Role::Derived),
    row(ids::WSM_DERIVED, 0, "WSM Derived", Role::Derived),
    row(ids::DEMO_SCENE, sc::DEMO_SCENE, "Scene (synthetic demo)", Role::Scene),
    typed_row(ids::SCENE_IMPL, sc::SCENE, "Scene", Role::Scene, TypedClass::SceneImpl),
    typed_row(ids::NODE_IMPL, sc::NODE, "Node", Role::Node, TypedClass::NodeImpl),
    typed_row(ids::ROOT_NODE, sc::NODE, "Root Node", Role::Node, TypedClass::RootNode),
    typed_row(ids::TRACK_VIEW_NODE, sc::TRACK_VIEW, "Track View Node", Role::Scene, TypedClass::TrackViewNode),
    typed_row(ids::PRS, sc::CTRL_MATRIX3, "Position/Rotation/Scale", Role::Controller, TypedClass::Prs),
    typed_row(ids::LOOK_AT, sc::CTRL_MATRIX3, "LookAt", Role::Controller, TypedClass::LookAt),
    typed_row(ids::PARAM_BLOCK2, sc::PARAM_BLOCK2, "ParamBlock2", Role::ParamBlock, TypedClass::ParamBlock2),
    typed_row(ids::PARAM_BLOCK, sc::PARAM_BLOCK, "ParamBlock", Role::ParamBlock, TypedClass::ParamBlock),
    typed_row(ids::EDITABLE_POLY, sc::GEOM_OBJECT, "Editable Poly", Role::Object, TypedClass::EditablePoly),
    typed_row(ids::EDITABLE_MESH, sc::GEOM_OBJECT, "Editable Mesh", Role::Object, TypedClass::EditableMesh),
    row(ids::RENDER_ENVIRONMENT, sc::RENDER_ENVIRONMENT, "RenderEnvironment", Role::Environment),
    row(ids::MAXSCRIPT_UTILITY, sc::UTILITY, "MAXScript utility", Role::Utility),
    // Controllers.
    row(ids::POSITION_XYZ, sc::CTRL_POSITION, "Position XYZ", Role::Controller),
    row(ids::SCALE_XYZ, sc::CTRL_SCALE, "Scale XYZ", Role::Controller),
    row(ids::EULER_XYZ, sc::CTRL_ROTATION, "Euler XYZ", Role::Controller),
    typed_row(ids::BEZIER_FLOAT, sc::CTRL_FLOAT, "Bezier Float", Role::Controller, TypedClass::Keyframer),
    typed_row(ids::BEZIER_POSITION, sc::CTRL_POSITION, "Bezier Position", Role::Controller, TypedClass::Keyframer),
    typed_row(ids::BEZIER_SCALE, sc::CTRL_SCALE, "Bezier Scale", Role::Controller, TypedClass::Keyframer),
    typed_row(ids::BEZIER_POINT3, sc::CTRL_POINT3, "Bezier Point3", Role::Controller, TypedClass::Keyframer),
    typed_row(ids::BEZIER_COLOR, sc::CTRL_POINT3, "Bezier Color", Role::Controller, TypedClass::Keyframer),
    // Keyframe controllers sampled by `model::keys_tcb` / `model::keys_linear` (issue 40),
    // typed in T2 by `model::object_parts::keyframer`, `model::key_records`; the lists `model::list_controllers` sums.
    typed_row(ids::TCB_POSITION, sc::CTRL_POSITION, "TCB Position", Role::Controller, TypedClass::Keyframer),
    typed_row(ids::TCB_ROTATION, sc::CTRL_ROTATION, "TCB Rotation", Role::Controller, TypedClass::Keyframer),
    typed_row(ids::TCB_SCALE, sc::CTRL_SCALE, "TCB Scale", Role::Controller, TypedClass::Keyframer),
    typed_row(ids::LINEAR_POSITION, sc::CTRL_POSITION, "Linear Position", Role::Controller, TypedClass::Keyframer),
    typed_row(ids::LINEAR_ROTATION, sc::CTRL_ROTATION, "Linear Rotation", Role::Controller, TypedClass::Keyframer),
    typed_row(ids::LINEAR_SCALE, sc::CTRL_SCALE, "Linear Scale", Role::Controller, TypedClass::Keyframer),
    row(ids::FLOAT_LIST, sc::CTRL_FLOAT, "Float List", Role::Controller),
    row(ids::POSITION_LIST, sc::CTRL_POSITION, "Position List", Role::Controller),
    row(ids::ROTATION_LIST, sc::CTRL_ROTATION, "Rotation List", Role::Controller),
    row(ids::SCALE_LIST, sc::CTRL_SCALE, "Scale List", Role::Controller),
    row(ids::CUSTOM_ATTRIBUTE, sc::CUSTOM_ATTRIBUTE, "Custom Attribute", Role::Attribute),
    row(ids::VRAY_Z_DEPTH, sc::RENDER_EFFECT, "VRayZDepth", Role::RenderEffect),
    // IK controllers: planar two-bone HI chains are solved by `eval::ik_solve`; any other
    // chain is reported (triage class `ik`).
    row(ids::IK_CONTROL, sc::CTRL_MATRIX3, "IKControl", Role::Controller),
    row(ids::IK_CHAIN_CONTROL, sc::CTRL_MATRIX3, "IKChainControl", Role::Controller),
    // Biped (design §10). Superclasses measured in the class directories of the Rocketbox
    // and LD35 scenes (docs/biped-format-notes.md): 0x9155 under 0x60, 0x9154 and 0x9156
    // under 0x9008, 0x9125 under 0x10.
    row(ids::BIPED_SYSTEM, sc::WSM_OBJECT, "Biped system", Role::Object),
    row(ids::BIPED_COM, sc::CTRL_MATRIX3, "Biped centre of mass", Role::Controller),
    row(ids::BIPED_PART, sc::CTRL_MATRIX3, "Biped part", Role::Controller),
    row(ids::BIPED_GEOMETRY, sc::GEOM_OBJECT, "Biped part geometry", Role::Object),
    // Materials and maps.
    row(ids::STANDARD_MATERIAL, sc::MATERIAL, "Standard", Role::Material),
    row(ids::MULTI_MATERIAL, sc::MATERIAL, "Multi/Sub-Object", Role::Material),
    row(ids::BITMAP_TEXTURE, sc::TEXTURE, "Bitmap", Role::Texture),
    // Objects.
    object_row(ids::BOX, "Box", &p::r#box::BOX),
    object_row(ids::PLANE, "Plane", &p::plane::PLANE),
    object_row(ids::CYLINDER, "Cylinder", &p::cylinder::CYLINDER),
    object_row(ids::CONE, "Cone", &p::cylinder::CONE),
    object_row(ids::TUBE, "Tube", &p::tube::TUBE),
    object_row(ids::TORUS, "Torus", &p::torus::TORUS),
    object_row(ids::SPHERE, "Sphere", &p::sphere::SPHERE),
    object_row(ids::PYRAMID, "Pyramid", &p::pyramid::PYRAMID),
    object_row(ids::GEOSPHERE, "GeoSphere", &p::geosphere::GEOSPHERE),
    object_row(ids::TEAPOT, "Teapot", &p::teapot::TEAPOT),
    object_row(ids::CHAMFER_BOX, "ChamferBox", &p::chamferbox::CHAMFER_BOX),
    object_row(ids::HOSE, "Hose", &p::hose::HOSE),
    object_row(ids::BONE, "Bone", &p::bone::BONE),
    object_row(ids::HEDRA, "Hedra", &p::hedra::HEDRA),
    object_row(ids::PROBOOLEAN, "ProBoolean", &p::boolean::PROBOOLEAN),
    // Target object (of a target camera or light): geometry superclass, no mesh; Max does
    // not count it.
    row(ids::TARGET_OBJECT, sc::GEOM_OBJECT, "Target", Role::Object),
    row(ids::LINE, sc::SHAPE, "Line", Role::Shape),
    // Modifiers whose output is geometry whatever their input.
    Class {
        evaluator: Evaluator::OverShape(&m::extrude::EXTRUDE),
        ..modifier_row(ids::EXTRUDE, "Extrude", None, Effect::MAKES_GEOMETRY)
    },
    Class {
        evaluator: Evaluator::OverShape(&m::lathe::LATHE),
        ..modifier_row(ids::LATHE, "Lathe", None, Effect::MAKES_GEOMETRY)
    },
    Class {
        evaluator: Evaluator::OverShape(&m::bevel::BEVEL),
        ..modifier_row(ids::BEVEL, "Bevel", None, Effect::MAKES_GEOMETRY)
    },
    modifier_row(ids::BEVEL_PROFILE, "Bevel Profile", None, Effect::MAKES_GEOMETRY),
    modifier_row(ids::SHELL, "Shell", Some(&m::shell::SHELL), Effect::MAKES_GEOMETRY),
    modifier_row(ids::EDIT_POLY, "Edit Poly", Some(&m::edit_poly::EDIT_POLY), Effect::MAKES_GEOMETRY),
    modifier_row(ids::EDIT_MESH, "Edit Mesh", Some(&m::edit_mesh::EDIT_MESH), Effect::MAKES_GEOMETRY),
    modifier_row(ids::TURBOSMOOTH, "TurboSmooth", Some(&m::turbosmooth::TURBOSMOOTH), Effect::MAKES_GEOMETRY),
    // Modifiers evaluated here.
    modifier_row(ids::MESHSMOOTH, "MeshSmooth", Some(&m::meshsmooth::MESHSMOOTH), Effect::NONE),
    modifier_row(ids::SYMMETRY, "Symmetry", Some(&m::symmetry::SYMMETRY), Effect::NONE),
    modifier_row(ids::BEND, "Bend", Some(&m::bend::BEND), Effect::NONE),
    modifier_row(ids::TAPER, "Taper", Some(&m::taper::TAPER), Effect::NONE),
    modifier_row(ids::MIRROR, "Mirror", Some(&m::mirror::MIRROR), Effect::NONE),
    modifier_row(ids::RIPPLE, "Ripple", Some(&m::ripple::RIPPLE), Effect::NONE),
    // Cloth: moves vertices, and outputs a tri object.
    modifier_row(ids::CLOTH, "Cloth", Some(&m::cloth::CLOTH), Effect { moves_vertices: true, ..Effect::NONE }),
    // Modifiers whose topology passes through (ids as the corpus class directories list them).
    modifier_row(ids::UNWRAP_UVW, "Unwrap UVW", Some(&m::pass_through::PASS_THROUGH), Effect::PASSES_THROUGH),
    modifier_row(ids::UVW_MAP, "UVW Map", Some(&m::uvw_map::UVW_MAP), Effect::PASSES_THROUGH),
    modifier_row(ids::SKIN, "Skin", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::NOISE, "Noise", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::SMOOTH, "Smooth", Some(&m::pass_through::PASS_THROUGH), Effect::PASSES_THROUGH),
    modifier_row(ids::FFD_4X4X4, "FFD 4x4x4", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::XFORM, "XForm", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::WAVE, "Wave", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::TWIST, "Twist", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::MATERIAL_MODIFIER, "Material", Some(&m::pass_through::PASS_THROUGH), Effect::PASSES_THROUGH),
    modifier_row(ids::NORMAL, "Normal", Some(&m::normal::NORMAL), Effect::PASSES_THROUGH),
    modifier_row(ids::RELAX, "Relax", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::STRETCH, "Stretch", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::MAP_SCALER, "MapScaler", Some(&m::map_scaler::MAP_SCALER), Effect::PASSES_THROUGH),
    modifier_row(
        ids::SELECT_BY_CHANNEL,
        "Select By Channel",
        Some(&m::select_by_channel::SELECT_BY_CHANNEL),
        Effect::PASSES_THROUGH,
    ),
    modifier_row(ids::MESH_SELECT, "Mesh Select", Some(&m::mesh_select::MESH_SELECT), Effect::PASSES_THROUGH),
    modifier_row(ids::SPHERIFY, "Spherify", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::MELT, "Melt", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    modifier_row(ids::CONFORM, "Conform", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS),
    Class {
        superclass: sc::WS_MODIFIER,
        ..modifier_row(ids::PATH_DEFORM_WSM, "PathDeform (WSM)", Some(&m::pass_through::PASS_THROUGH), Effect::DEFORMS)
    },
    // Modifiers known but not evaluated.
    modifier_row(ids::MAP_EXTENDER, "Map Extender", None, Effect::NONE),
    modifier_row(ids::EDIT_NORMALS, "Edit Normals", None, Effect::NONE),
];

/// The class with this Class ID and superclass.
pub(crate) fn find(id: [u32; 2], superclass: u32) -> Option<&'static Class> {
    CATALOGUE.iter().find(|c| c.id == id && c.superclass == superclass)
}

/// The typed model of a class, when it has one.
pub(crate) fn typed_class(id: [u32; 2], superclass: u32) -> Option<TypedClass> {
    find(id, superclass).and_then(|c| c.typed)
}

/// The modifier rows with this Class ID (a stack entry is a modifier by its place: its
/// superclass is not looked at, as Bend and Box share an id under different superclasses).
fn modifiers_with(id: [u32; 2]) -> impl Iterator<Item = &'static Class> {
    CATALOGUE.iter().filter(move |c| c.id == id && c.role == Role::Modifier)
}

/// The evaluator `pick` finds among the rows of `role` with this Class ID.
fn evaluator<T>(id: [u32; 2], role: Role, pick: fn(Evaluator) -> Option<T>) -> Option<T> {
    CATALOGUE.iter().filter(|c| c.id == id && c.role == role).find_map(|c| pick(c.evaluator))
}

/// The evaluator of a modifier on a stack, `None` when evaluation does not know it. A stack
/// entry is a modifier by its place: its superclass is not looked at.
pub(crate) fn modifier(id: [u32; 2]) -> Option<&'static Modifier> {
    evaluator(id, Role::Modifier, |e| if let Evaluator::Modifier(m) = e { Some(m) } else { None })
}

/// The evaluator of a modifier directly over a spline shape.
pub(crate) fn over_shape(id: [u32; 2]) -> Option<&'static ShapeModifier> {
    evaluator(id, Role::Modifier, |e| if let Evaluator::OverShape(m) = e { Some(m) } else { None })
}

/// The builder of a base object's class (geometric objects).
pub(crate) fn object(id: [u32; 2]) -> Option<&'static Primitive> {
    evaluator(id, Role::Object, |e| if let Evaluator::Object(p) = e { Some(p) } else { None })
}

/// Whether a modifier class makes geometry whatever its input ([`Effect::makes_geometry`]).
pub(crate) fn makes_geometry(id: [u32; 2]) -> bool {
    modifiers_with(id).any(|c| c.effect.makes_geometry)
}

/// The modifier class that moves vertices evaluation does not move
/// ([`Effect::moves_vertices`]).
pub fn moves_vertices(id: [u32; 2]) -> Option<&'static Class> {
    modifiers_with(id).find(|c| c.effect.moves_vertices)
}

#[cfg(test)]
mod tests;
