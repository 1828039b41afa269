//! NeL `.ig` files (`CInstanceGroup::serial`, `scene_group.cpp`): the `GRPT` tag, a
//! version (≤ 5), the real-time sun flag (v5+), the surface-light grid (v4+), the point
//! lights (v3+), the global position (v2+), clusters, portals and the portal links per
//! cluster (v1+), then the instances (`CInstance::serial`, ≤ 7: flags by version, light
//! ids, instance and shape names, clusters, position, rotation, scale, parent).
//!
//! Point lights and retriever light grids are typed only when empty; otherwise they and
//! everything after them stay one opaque run.

use super::stream::{NelError, Part, Reader, Writer};

/// The tag `serialCheck(NELID("TPRG"))` leaves.
pub const MAGIC: [u8; 4] = *b"GRPT";

/// A `CCluster`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cluster {
    /// Serial version (≤ 3).
    pub version: u32,
    /// Name (v1+).
    pub name: String,
    /// Bounding planes `a, b, c, d`.
    pub volume: Vec<[f32; 4]>,
    /// Local bounding box centre and half size.
    pub bbox: [[f32; 3]; 2],
    /// FatherVisible, VisibleFromFather bytes.
    pub visible: [u8; 2],
    /// Sound group and environment effect names (v2+).
    pub sound_env: [String; 2],
    /// AudibleFromFather, FatherAudible bytes (v3+).
    pub audible: [u8; 2],
}

/// A `CPortal`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Portal {
    /// Serial version (≤ 1).
    pub version: u32,
    /// Polygon.
    pub poly: Vec<[f32; 3]>,
    /// Name.
    pub name: String,
    /// Occlusion model names, closed and open (v1+).
    pub occlusion: [String; 2],
}

/// A `CInstanceGroup::CInstance`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Instance {
    /// Serial version (≤ 7).
    pub version: u32,
    /// The flag and light-id bytes present at this version, in file order.
    pub flags: Vec<u8>,
    /// Instance name (v2+).
    pub instance_name: String,
    /// DontAddToScene byte (v2+).
    pub dont_add_to_scene: u8,
    /// Cluster ids (v1+).
    pub clusters: Vec<u32>,
    /// Shape name.
    pub name: String,
    /// Position.
    pub pos: [f32; 3],
    /// Rotation quaternion.
    pub rot: [f32; 4],
    /// Scale.
    pub scale: [f32; 3],
    /// Parent index.
    pub parent: i32,
}

/// A `CInstanceGroup`.
#[derive(Clone, Debug, PartialEq)]
pub struct InstanceGroup {
    /// Serial version (≤ 5).
    pub version: u32,
    /// Everything after the version; opaque from the first untyped field on.
    pub(crate) body: Part<InstanceGroupBody>,
}

/// The typed part of an instance group.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct InstanceGroupBody {
    /// `_RealTimeSunContribution` byte (v5+).
    pub real_time_sun: u8,
    /// Surface light version, cell size, 1 / cell size (v4+; grid map empty).
    pub surface_light: Option<(u32, f32, f32)>,
    /// Point-light array version (v3+; both containers empty).
    pub point_lights_version: Option<u32>,
    /// Global position (v2+).
    pub global_pos: [f32; 3],
    /// Clusters (v1+).
    pub clusters: Vec<Cluster>,
    /// Portals (v1+).
    pub portals: Vec<Portal>,
    /// Portal indices of each cluster (v1+).
    pub cluster_portals: Vec<Vec<i32>>,
    /// Instances.
    pub instances: Vec<Instance>,
}

fn flag_count(version: u32) -> usize {
    [0, 0, 0, 6, 7, 8, 9, 10][version as usize]
}

fn read_instance(r: &mut Reader) -> Result<Instance, NelError> {
    let version = r.version(7)?;
    let flags = r.take(flag_count(version))?.to_vec();
    let (instance_name, dont_add_to_scene) = if version >= 2 { (r.string()?, r.u8()?) } else { (String::new(), 0) };
    let clusters = if version >= 1 { r.vec(4, |r| r.u32())? } else { Vec::new() };
    let name = r.string()?;
    Ok(Instance {
        version,
        flags,
        instance_name,
        dont_add_to_scene,
        clusters,
        name,
        pos: r.f32s()?,
        rot: r.f32s()?,
        scale: r.f32s()?,
        parent: r.i32()?,
    })
}

fn read_body(r: &mut Reader, version: u32) -> Result<InstanceGroupBody, NelError> {
    let real_time_sun = if version >= 5 { r.u8()? } else { 1 };
    let surface_light = if version >= 4 {
        let v = r.version(1)?;
        let cell = (r.f32()?, r.f32()?);
        if r.count(1)? != 0 {
            return Err(r.error("retriever light grids are not typed"));
        }
        Some((v, cell.0, cell.1))
    } else {
        None
    };
    let point_lights_version = if version >= 3 {
        let v = r.version(1)?;
        if r.count(1)? != 0 || r.count(1)? != 0 {
            return Err(r.error("point lights are not typed"));
        }
        Some(v)
    } else {
        None
    };
    let global_pos = if version >= 2 { r.f32s()? } else { [0.0; 3] };
    let (mut clusters, mut portals, mut cluster_portals) = (Vec::new(), Vec::new(), Vec::new());
    if version >= 1 {
        clusters = r.within("Cluster", |r| {
            r.vec(35, |r| {
                let version = r.version(3)?;
                let name = if version >= 1 { r.string()? } else { String::new() };
                let volume = r.vec(16, |r| r.f32s::<4>())?;
                r.version(0)?;
                let bbox = [r.f32s()?, r.f32s()?];
                let visible = r.array()?;
                let sound_env = if version >= 2 { [r.string()?, r.string()?] } else { Default::default() };
                let audible = if version >= 3 { r.array()? } else { [0; 2] };
                Ok(Cluster { version, name, volume, bbox, visible, sound_env, audible })
            })
        })?;
        portals = r.within("Portal", |r| {
            r.vec(9, |r| {
                let version = r.version(1)?;
                let poly = r.vec(12, |r| r.f32s::<3>())?;
                let name = r.string()?;
                let occlusion = if version >= 1 { [r.string()?, r.string()?] } else { Default::default() };
                Ok(Portal { version, poly, name, occlusion })
            })
        })?;
        for _ in 0..clusters.len() {
            cluster_portals.push(r.vec(4, |r| r.i32())?);
        }
    }
    let instances = r.within("Instance", |r| r.vec(45, read_instance))?;
    r.finish()?;
    Ok(InstanceGroupBody {
        real_time_sun,
        surface_light,
        point_lights_version,
        global_pos,
        clusters,
        portals,
        cluster_portals,
        instances,
    })
}

/// Reads an `.ig` file.
pub(crate) fn read(r: &mut Reader) -> Result<InstanceGroup, NelError> {
    r.within("CInstanceGroup", |r| {
        r.check(&MAGIC)?;
        let version = r.version(5)?;
        let body = r.part("body", |r| read_body(r, version));
        Ok(InstanceGroup { version, body })
    })
}

/// Writes an `.ig` file.
pub(crate) fn write(w: &mut Writer, g: &InstanceGroup) {
    w.bytes(&MAGIC);
    w.version(g.version);
    let version = g.version;
    w.part(&g.body, |w, b| {
        if version >= 5 {
            w.u8(b.real_time_sun);
        }
        if let Some((v, cell, oo)) = b.surface_light {
            w.version(v);
            w.f32(cell);
            w.f32(oo);
            w.count(0);
        }
        if let Some(v) = b.point_lights_version {
            w.version(v);
            w.count(0);
            w.count(0);
        }
        if version >= 2 {
            w.f32s(&b.global_pos);
        }
        if version >= 1 {
            w.vec(&b.clusters, |w, c| {
                w.version(c.version);
                if c.version >= 1 {
                    w.string(&c.name);
                }
                w.vec(&c.volume, |w, p| w.f32s(p));
                w.version(0);
                w.f32s(&c.bbox[0]);
                w.f32s(&c.bbox[1]);
                w.bytes(&c.visible);
                if c.version >= 2 {
                    w.string(&c.sound_env[0]);
                    w.string(&c.sound_env[1]);
                }
                if c.version >= 3 {
                    w.bytes(&c.audible);
                }
            });
            w.vec(&b.portals, |w, p| {
                w.version(p.version);
                w.vec(&p.poly, |w, v| w.f32s(v));
                w.string(&p.name);
                if p.version >= 1 {
                    w.string(&p.occlusion[0]);
                    w.string(&p.occlusion[1]);
                }
            });
            for links in &b.cluster_portals {
                w.vec(links, |w, i| w.i32(*i));
            }
        }
        w.vec(&b.instances, |w, i| {
            w.version(i.version);
            w.bytes(&i.flags);
            if i.version >= 2 {
                w.string(&i.instance_name);
                w.u8(i.dont_add_to_scene);
            }
            if i.version >= 1 {
                w.vec(&i.clusters, |w, c| w.u32(*c));
            }
            w.string(&i.name);
            w.f32s(&i.pos);
            w.f32s(&i.rot);
            w.f32s(&i.scale);
            w.i32(i.parent);
        });
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes_of(g: &InstanceGroup) -> Vec<u8> {
        let mut w = Writer::default();
        write(&mut w, g);
        w.0
    }

    fn instance(version: u32, name: &str) -> Instance {
        Instance {
            version,
            flags: vec![1; flag_count(version)],
            instance_name: if version >= 2 { format!("{name}01") } else { String::new() },
            dont_add_to_scene: 0,
            clusters: if version >= 1 { vec![0, 1] } else { vec![] },
            name: format!("{name}.shape"),
            pos: [1.0, 2.0, 3.0],
            rot: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            parent: -1,
        }
    }

    fn group(version: u32, instance_version: u32) -> InstanceGroup {
        let cluster = Cluster {
            version: 3,
            name: "cluster01".into(),
            volume: vec![[0.0, 0.0, -1.0, -7.2]; 6],
            bbox: [[0.0; 3], [1.0; 3]],
            visible: [0, 1],
            sound_env: ["".into(), "".into()],
            audible: [1, 0],
        };
        let portal = Portal {
            version: 1,
            poly: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            name: "door".into(),
            occlusion: Default::default(),
        };
        InstanceGroup {
            version,
            body: Part::Typed(InstanceGroupBody {
                real_time_sun: if version >= 5 { 0 } else { 1 },
                surface_light: (version >= 4).then_some((0, 1.0, 1.0)),
                point_lights_version: (version >= 3).then_some(0),
                global_pos: if version >= 2 { [4.0, 5.0, 6.0] } else { [0.0; 3] },
                clusters: if version >= 1 { vec![cluster.clone(), cluster] } else { vec![] },
                portals: if version >= 1 { vec![portal] } else { vec![] },
                cluster_portals: if version >= 1 { vec![vec![0], vec![0]] } else { vec![] },
                instances: vec![instance(instance_version, "sphere"), instance(instance_version, "box")],
            }),
        }
    }

    #[test]
    fn every_group_and_instance_version_round_trips() {
        for version in 0..=5 {
            for iv in 0..=7 {
                let g = group(version, iv);
                let bytes = bytes_of(&g);
                let back = read(&mut Reader::new(&bytes)).unwrap();
                assert_eq!(back, g, "group v{version}, instance v{iv}");
            }
        }
    }

    #[test]
    fn point_lights_are_kept_opaque_in_place() {
        let mut bytes = bytes_of(&group(5, 7));
        // The point-light array follows tag (4), version (1), sun byte (1), surface light (1 + 8 + 4).
        let at = 4 + 1 + 1 + 13 + 1;
        bytes[at..at + 4].copy_from_slice(&1u32.to_le_bytes());
        let back = read(&mut Reader::new(&bytes)).unwrap();
        assert!(matches!(&back.body, Part::Opaque(o) if o.offset == 5 && o.why.what.contains("point lights")));
        assert_eq!(bytes_of(&back), bytes);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic_and_always_write_back(data in prop::collection::vec(any::<u8>(), 0..300)) {
            let mut bytes = MAGIC.to_vec();
            bytes.extend(data);
            if let Ok(g) = read(&mut Reader::new(&bytes)) {
                prop_assert_eq!(bytes_of(&g), bytes);
            }
        }

        #[test]
        fn write_then_read_is_identity(version in 0u32..6, iv in 0u32..8, x in any::<u32>(), name in "[a-z0-9_]{0,10}") {
            let mut g = group(version, iv);
            if let Part::Typed(b) = &mut g.body {
                b.instances[0].name = name;
                b.instances[0].pos[0] = f32::from_bits(x);
            }
            let bytes = bytes_of(&g);
            let back = read(&mut Reader::new(&bytes)).unwrap();
            prop_assert_eq!(bytes_of(&back), bytes);
            prop_assert!(back.body.typed().is_some());
        }
    }
}
