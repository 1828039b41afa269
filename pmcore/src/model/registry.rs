//! Class registry: how a Scene object's class decides what the typed model decodes.
//! The typed classes are the rows of the class catalogue ([`crate::classes::CATALOGUE`])
//! that name a [`TypedClass`]. Resolution order: exact typed class → typed superclass (the Animatable and
//! ReferenceMaker overlays, own chunks kept raw in place) → generic object (unknown
//! superclass: base chunks typed, everything else raw, listed in the inventory as
//! generic). Never fatal.

pub use crate::classes::TypedClass;

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
    pub(crate) fn name(self) -> &'static str {
        match self {
            Resolution::Exact(_) => "exact",
            Resolution::Superclass => "superclass",
            Resolution::Generic => "generic",
        }
    }
}

/// Superclasses whose objects are ReferenceTargets (digest §4.3: the typed ones and the
/// unknown-only ones the reference registry parses as ReferenceTarget).
pub(crate) const REGISTERED_SUPERCLASSES: &[u32] = &[
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

/// Resolves a class to the way the typed model treats it.
pub(crate) fn resolve(class_id: [u32; 2], superclass: u32) -> Resolution {
    if let Some(t) = crate::classes::typed_class(class_id, superclass) {
        return Resolution::Exact(t);
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
        assert_eq!(resolve([0x2007, 0], 0x9003), Resolution::Exact(TypedClass::Keyframer));
        assert_eq!(resolve([0x5b6e_7ba7, 0x692e_4477], 0x9003), Resolution::Superclass);
        for unknown in [0x1150, 0x1180, 0x1190] {
            assert_eq!(resolve([7, 7], unknown), Resolution::Generic);
        }
    }
}
