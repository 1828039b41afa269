//! How the exporter converted Max's axes and units ([`Conversion`]), read from the
//! reference's own settings or, where it declares none, the candidates tried.

use crate::scene::{Format, RefScene};
use glam::{DMat4, DVec3};

/// How the exporter maps Max's axes and units onto the file's, as a transform `C` for the
/// nodes without an exported parent (FBX: `root local = C · Max world`, children keep Max's
/// local transforms and the vertices stay in Max units and object axes) or, for formats
/// that convert every coordinate (`.x`), a similarity (`local' = C · local · C⁻¹`).
#[derive(Clone, Debug)]
pub(crate) struct Conversion {
    pub(crate) matrix: DMat4,
    pub(crate) similarity: bool,
    pub(crate) note: String,
    /// False when the file does not declare enough to place its roots (FBX 6.0).
    pub(crate) roots_comparable: bool,
}

/// FBX: the declared settings. The axis turn is `Rx(-90°)` from a Z-up scene to a Y-up file
/// (what Max writes as the roots' `PreRotation`); the unit factor `Original / UnitScale`
/// is a uniform scale on the roots (Max writes it into their `Lcl Scaling` and
/// `Lcl Translation`). A file that does not declare the scene's up axis (FBX 6.0) is read
/// with the turn its first root carries, and says so. Other formats declare nothing: the
/// candidates are tried and the one that fits is reported.
pub(crate) fn conversions(reference: &RefScene) -> Result<Vec<Conversion>, String> {
    let turn = DMat4::from_rotation_x(-std::f64::consts::FRAC_PI_2);
    match (&reference.format, &reference.axes) {
        (Format::Fbx(_), Some(a)) => {
            let f = a.unit_factor();
            let units = DMat4::from_scale(DVec3::splat(f));
            let (axes, note) = match a.original_up {
                Some(o) if o == a.up => (DMat4::IDENTITY, format!("up axis {} unchanged", a.up.0)),
                Some((2, 1)) if a.up == (1, 1) => (turn, "Z-up scene to Y-up file: Rx(-90°) on root nodes".to_string()),
                Some(o) => return Err(format!("axis conversion from up {o:?} to up {:?} is not modelled", a.up)),
                None => {
                    let note = "the file declares neither the scene's up axis nor its units (FBX 6.0): root nodes not compared";
                    return Ok(vec![Conversion {
                        matrix: DMat4::IDENTITY,
                        similarity: false,
                        note: note.into(),
                        roots_comparable: false,
                    }]);
                }
            };
            let note = format!("{note}; unit factor {f} on root nodes");
            Ok(vec![Conversion { matrix: axes * units, similarity: false, note, roots_comparable: true }])
        }
        (Format::Fbx(_), None) => {
            let note = "no GlobalSettings: root nodes not compared";
            Ok(vec![Conversion {
                matrix: DMat4::IDENTITY,
                similarity: false,
                note: note.into(),
                roots_comparable: false,
            }])
        }
        _ => {
            let swap =
                DMat4::from_cols(DVec3::X.extend(0.0), DVec3::Z.extend(0.0), DVec3::Y.extend(0.0), glam::DVec4::W);
            Ok(vec![
                Conversion {
                    matrix: DMat4::IDENTITY,
                    similarity: true,
                    note: "axes not declared: identity fits".into(),
                    roots_comparable: true,
                },
                Conversion {
                    matrix: swap,
                    similarity: true,
                    note: "axes not declared: Y/Z swap (left-handed Y-up) fits".into(),
                    roots_comparable: true,
                },
                Conversion {
                    matrix: turn,
                    similarity: true,
                    note: "axes not declared: (x, z, -y) turn fits".into(),
                    roots_comparable: true,
                },
            ])
        }
    }
}
