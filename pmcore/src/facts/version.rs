//! The Max format version named by the Scene root chunk id. One table, one place; ids the
//! public corpus does not hold are tentative, and unknown ids are printed raw.

/// (root chunk id, release name). Verified on real files (`../shared/corpus/{public,wild,pairs}`,
/// against the release in each file's property set): 0x2004, 0x2009, 0x200A, 0x200B, 0x200E,
/// 0x2011–0x2014, 0x2017, 0x2019, 0x2020–0x2023, 0x2025–0x2029, 0x2031; the rest
/// (0x2006, 0x2008, 0x200F) are tentative. One id can cover two releases (0x2023, 0x2029).
pub(crate) const VERSIONS: &[(u16, &str)] = &[
    (0x2004, "Max 3"),
    (0x2006, "Max 4"),
    (0x2008, "Max 5"),
    (0x2009, "Max 6"),
    (0x200A, "Max 7"),
    (0x200B, "Max 8"),
    (0x200E, "Max 9"),
    (0x200F, "Max 2008"),
    (0x2011, "Max 2009"),
    (0x2012, "Max 2010"),
    (0x2013, "Max 2011"),
    (0x2014, "Max 2012"),
    (0x2017, "Max 2013"),
    (0x2019, "Max 2014"),
    (0x2020, "Max 2015"),
    (0x2021, "Max 2016"),
    (0x2022, "Max 2017"),
    (0x2023, "Max 2018/2019"),
    (0x2025, "Max 2020"),
    (0x2026, "Max 2021"),
    (0x2027, "Max 2022"),
    (0x2028, "Max 2023"),
    (0x2029, "Max 2024/2025"),
    (0x2031, "Max 2026"),
];

/// Release name for a root id, or `unknown (0x….)`.
pub fn max_version(root_id: u16) -> String {
    VERSIONS
        .iter()
        .find(|(id, _)| *id == root_id)
        .map(|(_, name)| (*name).to_string())
        .unwrap_or_else(|| format!("unknown (0x{root_id:04x})"))
}

/// Version label of a file: the name for `root_id`, narrowed to one release where the id
/// covers two (0x2023 = Max 2018/2019, 0x2029 = Max 2024/2025) by the release whose format the
/// file was written in (`Saved As Version`: 20.00 → Max 2018, 21.00 → Max 2019; release N ≥ 10
/// is Max 1998+N). Without a usable `saved_as` the label keeps both names.
pub(crate) fn version_label(root_id: u16, saved_as: Option<&str>) -> String {
    let label = max_version(root_id);
    let Some((first, second)) = label.strip_prefix("Max ").and_then(|r| r.split_once('/')) else {
        return label;
    };
    let major: Option<u32> = saved_as.and_then(|r| r.split(['.', ',']).next()?.parse().ok());
    match major.filter(|&m| m >= 10).map(|m| (1998 + m).to_string()) {
        Some(year) if year == first || year == second => format!("Max {year}"),
        _ => label,
    }
}

/// Bucket slug for a version: `max-2018-2019`, `max-unknown-0x2a01`.
pub fn version_slug(root_id: Option<u16>) -> String {
    match root_id {
        None => "max-none".to_string(),
        Some(id) => match VERSIONS.iter().find(|(v, _)| *v == id) {
            Some((_, name)) => crate::slug(name),
            None => format!("max-unknown-0x{id:04x}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_slugs() {
        assert_eq!(max_version(0x2023), "Max 2018/2019");
        assert_eq!(max_version(0x2A01), "unknown (0x2a01)");
        assert_eq!(version_slug(Some(0x2023)), "max-2018-2019");
        assert_eq!(version_slug(Some(0x2A01)), "max-unknown-0x2a01");
        assert_eq!(version_slug(Some(0x2004)), "max-3");
    }

    #[test]
    fn ids_seen_in_real_files_have_names() {
        // 0x2013: pairs/Daminvar__Armagine/{arm,cell,hallway1}.max, property set
        // "3ds Max Version: 13.00" (Max 2011); 0x2026: pairs/MichaelDonalGallagher__3D-Modelling/
        // Battery.max, "23.00" (Max 2021).
        assert_eq!(max_version(0x2013), "Max 2011");
        assert_eq!(max_version(0x2026), "Max 2021");
        assert_eq!(version_slug(Some(0x2026)), "max-2021");
    }

    #[test]
    fn shared_ids_follow_saved_as() {
        assert_eq!(version_label(0x2023, Some("20.00")), "Max 2018");
        assert_eq!(version_label(0x2023, Some("21.00")), "Max 2019");
        assert_eq!(version_label(0x2029, Some("26.00")), "Max 2024");
        assert_eq!(version_label(0x2029, Some("27,00")), "Max 2025");
        assert_eq!(version_label(0x2023, None), "Max 2018/2019");
        assert_eq!(version_label(0x2023, Some("19.00")), "Max 2018/2019");
        assert_eq!(version_label(0x2021, Some("21.00")), "Max 2016");
    }
}
