//! The embedded demo corpus: a dozen small files, generated on demand, that exercise
//! every farm path a real sweep meets — several Max versions, 64-bit headers, a gzip
//! file, an LFS pointer, an empty and a corrupt file, and each Ryzom triage class (Map
//! Extender, NeL flare, biped with legacy and fresh figure era) — and a NeL `.skel` whose
//! T1 is the NeL round trip. Used by `pmfarm run`
//! without paths, so a fresh checkout has something real to check and report on.

use super::{SceneBuilder, SynthError};
use crate::chunk::{Chunk, HeaderWidth};
use crate::classes::ids;
use crate::compression::Compression;
use crate::triage;

/// One demo file: its name and bytes, plus what it is meant to show.
#[derive(Clone, Debug)]
pub struct DemoFile {
    /// File name (`max2016_box.max`).
    pub name: &'static str,
    /// File content.
    pub bytes: Vec<u8>,
    /// What the file demonstrates (for the report and `docs/farm.md`).
    pub purpose: &'static str,
}

/// A scene with a placeholder object at storage index 0 (index 0 reads as an empty
/// reference, as in real files where it is the scene itself) and one named box.
fn box_scene(root_id: u16, node_name: &str) -> SceneBuilder {
    let mut b = SceneBuilder::new(root_id);
    let scene = b.class(None, ids::DEMO_SCENE, ids::superclass::DEMO_SCENE, "Scene");
    b.object(scene, vec![], vec![Chunk::leaf(0x0100, vec![0, 0, 0, 0])]);
    let geom = b.class(Some("prim.dlo"), ids::BOX, ids::superclass::GEOM_OBJECT, "Box");
    let dims: Vec<u8> = [10.0f32, 20.0, 5.0].iter().flat_map(|f| f.to_le_bytes()).collect();
    let obj = b.object(geom, vec![], vec![Chunk::leaf(0x0100, dims)]);
    b.node(node_name, obj);
    b
}

fn mapext_scene() -> SceneBuilder {
    let mut b = box_scene(0x2021, "Ground01");
    let mapext = b.class(Some("mapext198m3.dlm"), triage::MAPEXT_CLASS, triage::MAPEXT_SUPERCLASS, "Map Extender");
    let modifier = b.object(mapext, vec![], vec![Chunk::leaf(0x0100, vec![1, 0, 0, 0])]);
    let derived_target = 2; // the box object built by box_scene
                            // A derived object is written under the special chunk id 0x2032, not a class index.
    let osm_derived = crate::model::scene_index::OSM_DERIVED as usize;
    let derived = b.object(osm_derived, vec![derived_target, modifier as i32], vec![]);
    b.node("Terrain01", derived);
    b
}

fn flare_scene() -> SceneBuilder {
    let mut b = box_scene(0x2020, "Lamp01");
    let flare_class = [triage::FLARE_CLASS_A, 0x3c2f2307];
    let flare = b.class(Some("nel_flare.ms"), flare_class, 0x10, "NeL Flare");
    let pb2 = b.class(None, triage::PARAM_BLOCK2_CLASS, triage::PARAM_BLOCK2_SUPERCLASS, "ParamBlock2");
    let mut owner = Vec::new();
    owner.extend_from_slice(&flare_class[0].to_le_bytes());
    owner.extend_from_slice(&flare_class[1].to_le_bytes());
    // 19-byte parameter record: u16 id, u16 type, 11 bytes of flags, u32 value.
    let mut record = Vec::with_capacity(19);
    record.extend_from_slice(&triage::FIRST_FLARE_KEEP_SIZE_PARAM.to_le_bytes());
    record.extend_from_slice(&triage::PB2_TYPE_BOOL.to_le_bytes());
    record.extend_from_slice(&[0u8; 11]);
    record.extend_from_slice(&1u32.to_le_bytes());
    let block = b.object(
        pb2,
        vec![],
        vec![Chunk::leaf(triage::PB2_OWNER_CHUNK, owner), Chunk::leaf(triage::PB2_PARAM_CHUNK, record)],
    );
    let object = b.object(flare, vec![block as i32], vec![]);
    b.node("Flare01", object);
    b
}

fn biped_scene(root_id: u16, era: i32) -> SceneBuilder {
    let mut b = box_scene(root_id, "Floor01");
    let system = b.class(Some("biped.dlc"), triage::BIPED_SYSTEM, 0x10, "Biped Object");
    let object = b.object(system, vec![], vec![Chunk::leaf(triage::FIGURE_ERA_CHUNK, era.to_le_bytes().to_vec())]);
    b.node("Bip01", object);
    b
}

/// Builds the demo corpus, sorted by name.
pub fn demo_corpus() -> Result<Vec<DemoFile>, SynthError> {
    let mut files = vec![
        DemoFile { name: "max9_box.max", bytes: box_scene(0x200E, "Box01").build()?, purpose: "Max 9 scene" },
        DemoFile { name: "max2010_box.max", bytes: box_scene(0x2012, "Box01").build()?, purpose: "Max 2010 scene" },
        DemoFile { name: "max2016_box.max", bytes: box_scene(0x2021, "Box01").build()?, purpose: "Max 2016 scene" },
        DemoFile {
            name: "max2018_box.max",
            bytes: box_scene(0x2023, "Box01").build()?,
            purpose: "Max 2018/2019 scene",
        },
        DemoFile {
            name: "max2023_headers64.max",
            bytes: SceneBuilder { width: HeaderWidth::Long, ..box_scene(0x2028, "Box01") }.build()?,
            purpose: "Max 2023 scene with 14-byte (64-bit) chunk headers",
        },
        DemoFile {
            name: "max9_gzip.max",
            bytes: SceneBuilder { compression: Compression::Gzip, ..box_scene(0x200E, "Box01") }.build()?,
            purpose: "Max 9 scene saved with compression (gzip streams)",
        },
        DemoFile {
            name: "max2016_mapext.max",
            bytes: mapext_scene().build()?,
            purpose: "Map Extender modifier on a node",
        },
        DemoFile {
            name: "max2015_flare.max",
            bytes: flare_scene().build()?,
            purpose: "NeL flare with FirstFlareKeepSize",
        },
        DemoFile {
            name: "max2018_biped_legacy.max",
            bytes: biped_scene(0x2023, 3).build()?,
            purpose: "biped system, legacy figure era 3",
        },
        DemoFile {
            name: "max2022_biped_fresh.max",
            bytes: biped_scene(0x2027, 0).build()?,
            purpose: "biped system, fresh figure era 0",
        },
        DemoFile {
            name: "lfs_pointer.max",
            bytes: format!(
                "version https://git-lfs.github.com/spec/v1\noid sha256:{}\nsize 3244032\n",
                "0123456789abcdef".repeat(4)
            )
            .into_bytes(),
            purpose: "Git-LFS pointer instead of content (skip)",
        },
        DemoFile { name: "empty.max", bytes: Vec::new(), purpose: "empty file (skip)" },
        DemoFile { name: "corrupt.max", bytes: corrupt()?, purpose: "OLE file cut short (fail, corrupt-input)" },
        DemoFile {
            name: "nel_rig.skel",
            bytes: crate::nel::skel::write(&demo_rig()),
            purpose: "NeL skeleton written by the skel serializer from a hand-built rig (NeL round trip as T1)",
        },
    ];
    files.sort_by_key(|f| f.name);
    Ok(files)
}

/// A three-bone rig built by hand (root at the origin, pelvis 1 unit up, spine 0.5 above
/// it, spine LOD-disabled from 20 units), as the skel exporter would build it.
fn demo_rig() -> crate::nel::skel::Skeleton {
    use crate::nel::skel::{Bone, NelMatrix, Skeleton};
    let mut world = glam::Mat4::IDENTITY;
    let mut bones = Vec::new();
    for (i, (name, up, lod)) in
        [("Bip01", 0.0f32, 0.0f32), ("Bip01 Pelvis", 1.0, 0.0), ("Bip01 Spine", 0.5, 20.0)].into_iter().enumerate()
    {
        world *= glam::Mat4::from_translation(glam::Vec3::new(0.0, 0.0, up));
        bones.push(Bone {
            father_id: i as i32 - 1,
            unherit_scale: false,
            lod_disable_distance: lod,
            default_pos: [0.0, 0.0, up],
            inv_bind_pos: NelMatrix::from_affine(world.inverse()),
            ..Bone::new(name)
        });
    }
    Skeleton::build(bones)
}

/// A real compound file truncated inside its sector chain: OLE magic, broken structure.
fn corrupt() -> Result<Vec<u8>, SynthError> {
    let mut bytes = box_scene(0x2021, "Box01").build()?;
    bytes.truncate(1024);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{classify, Input, MaxFile};

    #[test]
    fn demo_files_have_their_input_classes_and_trigger_the_detectors() {
        let files = demo_corpus().unwrap();
        assert!(files.len() >= 12);
        for f in &files {
            let input = classify(&f.bytes);
            let expected = match f.name {
                "lfs_pointer.max" => "lfs-pointer",
                "empty.max" => "empty",
                "corrupt.max" => "corrupt-ole",
                "nel_rig.skel" => "not-ole",
                _ => "ole",
            };
            assert_eq!(input.class_name(), expected, "{}", f.name);
            if crate::nel::is_nel_name(f.name) {
                let (_, v) = crate::nel::t1::run(&f.bytes);
                assert_eq!(v.verdict, crate::verify::Verdict::pass(), "{}", f.name);
                continue;
            }
            let Input::Ole(ole) = input else { continue };
            let file = MaxFile::new(ole);
            for v in crate::verify::t1::run(&file, |_| {}) {
                assert!(!v.verdict.is_fail(), "{}: {:?}", f.name, v);
            }
            let t = triage::detect_file(&file).unwrap();
            assert_eq!(!t.mapext.is_empty(), f.name.contains("mapext"), "{}", f.name);
            assert_eq!(!t.flare.is_empty(), f.name.contains("flare"), "{}", f.name);
            assert_eq!(t.biped.is_some(), f.name.contains("biped"), "{}", f.name);
            if f.name.contains("flare") {
                assert_eq!(t.flare[0].first_flare_keep_size, Some(true));
                assert_eq!(t.flare[0].at.node.as_deref(), Some("Flare01"));
            }
            if f.name.contains("mapext") {
                assert_eq!(t.mapext[0].at.node.as_deref(), Some("Terrain01"));
            }
            if let Some(b) = &t.biped {
                let era = if f.name.contains("legacy") { 3 } else { 0 };
                assert_eq!(b.figure_era, vec![Some(era)]);
            }
        }
    }
}
