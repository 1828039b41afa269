//! Class registry: how a Scene object's class decides what the typed model decodes.
//! Resolution order: exact typed class → typed superclass (the Animatable and
//! ReferenceMaker overlays, own chunks kept raw in place) → generic object (unknown
//! superclass: base chunks typed, everything else raw, listed in the inventory as
//! generic). Never fatal.

/// Classes with their own typed chunks or typed accessors.
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
}

/// How an object's class was resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Resolution {
    /// An exact typed class.
    Exact(TypedClass),
    /// Unknown class of a registered superclass: Animatable + ReferenceMaker overlays.
    Superclass,
    /// Unknown superclass or unresolvable chunk id: only the Animatable / ReferenceMaker
    /// base chunks every Scene object writes are typed; the rest stays raw.
    Generic,
}

impl Resolution {
    /// `exact`, `superclass`, `generic`.
    pub fn name(self) -> &'static str {
        match self {
            Resolution::Exact(_) => "exact",
            Resolution::Superclass => "superclass",
            Resolution::Generic => "generic",
        }
    }
}

/// Superclasses whose objects are ReferenceTargets (digest §4.3: the typed ones and the
/// unknown-only ones the reference registry parses as ReferenceTarget).
pub const REGISTERED_SUPERCLASSES: &[u32] = &[
    0x0000_0000,
    0x77a6_0fbd,
    0x0000_0100,
    0x0000_0200,
    0x0000_0001,
    0x0000_0060,
    0x0000_0010, // typed
    0x9003,
    0x0008,
    0x0c20,
    0x0082,
    0x0c40,
    0x0c10,
    0x1080,
    0x10b0,
    0x1110,
    0x0c00,
    0x0d00,
    0x900b,
    0x900c,
    0x900d,
    0x9008,
    0x0810,
    0x9010,
    0x10f0,
    0x0050,
    0x10a0,
    0x0f00,
    0x9005,
    0x1010,
    0x9011,
    0xffff_fe00,
    0x1090,
    0x10d0,
    0x1160,
    0x9012,
    0x0b60,
    0x900f,
    0x0040,
    0x0030,
    0x0020,
    0x0820,
    0x0830,
    0x0c30,
];

/// Exact typed classes by (ClassId, SuperClassId).
pub const EXACT: &[([u32; 2], u32, TypedClass)] = &[
    ([0x2222, 0], 0x100, TypedClass::SceneImpl),
    ([1, 0], 0x1, TypedClass::NodeImpl),
    ([2, 0], 0x1, TypedClass::RootNode),
    ([0x8d73_b8aa, 0x90f2_ee71], 0x200, TypedClass::TrackViewNode),
    ([0x2005, 0], 0x9008, TypedClass::Prs),
    ([0x2006, 0], 0x9008, TypedClass::LookAt),
    ([0x82, 0], 0x82, TypedClass::ParamBlock2),
    ([8, 0], 0x8, TypedClass::ParamBlock),
    ([0x1bf8_338d, 0x192f_6098], 0x10, TypedClass::EditablePoly),
    ([0xe44f_10b3, 0], 0x10, TypedClass::EditableMesh),
];

/// Resolves a class to the way the typed model treats it.
pub fn resolve(class_id: [u32; 2], superclass: u32) -> Resolution {
    if let Some((_, _, t)) = EXACT.iter().find(|(c, s, _)| *c == class_id && *s == superclass) {
        return Resolution::Exact(*t);
    }
    if REGISTERED_SUPERCLASSES.contains(&superclass) {
        Resolution::Superclass
    } else {
        Resolution::Generic
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_then_superclass_then_generic() {
        assert_eq!(resolve([1, 0], 1), Resolution::Exact(TypedClass::NodeImpl));
        assert_eq!(resolve([0x2007, 0], 0x9003), Resolution::Superclass);
        for unknown in [0x1150, 0x1180, 0x1190] {
            assert_eq!(resolve([7, 7], unknown), Resolution::Generic);
        }
    }
}
