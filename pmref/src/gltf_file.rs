//! glTF 2.0 (`.gltf` JSON + external buffers) through the `gltf` crate: nodes with their
//! local TRS, `animations[]` channels as sampled tracks (one clip per animation) and skins
//! as clusters per joint.
//!
//! Every accessor read is checked against its buffer view and buffer first (offset, stride,
//! count): an accessor that runs past its buffer is a typed [`GltfError::AccessorPastBuffer`],
//! never a panic or a short read. Sparse accessors are refused ([`GltfError::Unsupported`]).
//!
//! One writer quirk is read as the writer meant it: the Babylon.js exporter for 3ds Max
//! (`AnimatedSpotlights.gltf`, generator `… vCustom.Build.Version`) writes a sampler's
//! `interpolation` as the number `0` — the ordinal of its C# enum
//! `GLTFAnimationSampler.Interpolation { LINEAR, STEP, CUBICSPLINE }` — where the spec wants
//! the name. The reader maps the ordinal to the name and says so in the time base note.

use crate::scene::{
    Format, Interpolation, RefCluster, RefNode, RefScene, RefSkin, RefTrack, SampledAnimation, TrackPath,
};
use glam::{DMat4, DQuat, DVec3};

/// Why a glTF file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GltfError {
    /// The JSON document.
    #[error("glTF JSON: {0}")]
    Json(String),
    /// A buffer that cannot be loaded or is shorter than its `byteLength`.
    #[error("buffer {index}: {what}")]
    Buffer {
        /// Buffer index.
        index: usize,
        /// What was wrong.
        what: String,
    },
    /// An accessor whose elements run past its buffer view or buffer.
    #[error("accessor {accessor}: {what}")]
    AccessorPastBuffer {
        /// Accessor index.
        accessor: usize,
        /// Offsets and lengths involved.
        what: String,
    },
    /// Something the reader does not take (sparse accessors, embedded data URIs …).
    #[error("unsupported: {0}")]
    Unsupported(String),
}

/// Loads an external buffer by its URI (relative to the `.gltf`).
pub type BufferLoader<'l> = &'l dyn Fn(&str) -> Option<Vec<u8>>;

/// Reads a `.gltf` document, loading its buffers through `load`.
pub fn read_scene(json: &[u8], load: BufferLoader<'_>) -> Result<RefScene, GltfError> {
    let (json, notes) = normalise_writer_quirks(json)?;
    let doc = gltf::Gltf::from_slice(&json).map_err(|e| GltfError::Json(e.to_string()))?;
    let buffers = load_buffers(&doc, load)?;
    let nodes = nodes(&doc);
    let tracks = tracks(&doc, &buffers)?;
    let skins = skins(&doc, &buffers)?;
    let generator = doc.document.as_json().asset.generator.clone().unwrap_or_else(|| "unknown writer".into());
    let mut time_base = format!("glTF seconds from each clip's start (writer: {generator})");
    for n in notes {
        time_base.push_str("; ");
        time_base.push_str(&n);
    }
    Ok(RefScene {
        skins,
        sampled: Some(SampledAnimation { tracks, origin: crate::scene::TimeOrigin::ClipStart, time_base }),
        ..RefScene::of_nodes(Format::Gltf, nodes)
    })
}

/// The Babylon exporter's numeric `interpolation` ordinals, mapped to the names (module notes).
fn normalise_writer_quirks(json: &[u8]) -> Result<(Vec<u8>, Vec<String>), GltfError> {
    let mut value: serde_json::Value = serde_json::from_slice(json).map_err(|e| GltfError::Json(e.to_string()))?;
    let mut notes = Vec::new();
    if let Some(animations) = value.get_mut("animations").and_then(|a| a.as_array_mut()) {
        for (a, animation) in animations.iter_mut().enumerate() {
            let Some(samplers) = animation.get_mut("samplers").and_then(|s| s.as_array_mut()) else { continue };
            for (s, sampler) in samplers.iter_mut().enumerate() {
                let Some(slot) = sampler.get_mut("interpolation") else { continue };
                if let Some(n) = slot.as_u64() {
                    let name = ["LINEAR", "STEP", "CUBICSPLINE"].get(n as usize).ok_or_else(|| {
                        GltfError::Json(format!("animation {a} sampler {s}: interpolation ordinal {n}"))
                    })?;
                    if notes.is_empty() {
                        notes.push(format!(
                            "interpolation written as the Babylon enum ordinal {n}, read as {name} (animation {a} sampler {s} and others)"
                        ));
                    }
                    *slot = serde_json::Value::String(name.to_string());
                }
            }
        }
    }
    if notes.is_empty() {
        return Ok((json.to_vec(), notes));
    }
    let bytes = serde_json::to_vec(&value).map_err(|e| GltfError::Json(e.to_string()))?;
    Ok((bytes, notes))
}

fn load_buffers(doc: &gltf::Gltf, load: BufferLoader<'_>) -> Result<Vec<Vec<u8>>, GltfError> {
    doc.buffers()
        .map(|b| {
            let index = b.index();
            let data = match b.source() {
                gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
                    return Err(GltfError::Unsupported(format!("buffer {index}: embedded data URI")))
                }
                gltf::buffer::Source::Uri(uri) => {
                    load(uri).ok_or_else(|| GltfError::Buffer { index, what: format!("{uri:?} cannot be read") })?
                }
                gltf::buffer::Source::Bin => {
                    doc.blob.clone().ok_or_else(|| GltfError::Buffer { index, what: "no GLB binary chunk".into() })?
                }
            };
            if data.len() < b.length() {
                return Err(GltfError::Buffer {
                    index,
                    what: format!("{} bytes, shorter than its byteLength {}", data.len(), b.length()),
                });
            }
            Ok(data)
        })
        .collect()
}

/// Checks that every element of `accessor` lies inside its view and buffer.
pub(crate) fn check_accessor(accessor: &gltf::Accessor<'_>, buffers: &[Vec<u8>]) -> Result<(), GltfError> {
    let index = accessor.index();
    if accessor.sparse().is_some() {
        return Err(GltfError::Unsupported(format!("accessor {index} is sparse")));
    }
    let view = accessor.view().ok_or_else(|| GltfError::Unsupported(format!("accessor {index} has no buffer view")))?;
    let buffer_len = buffers.get(view.buffer().index()).map_or(0, Vec::len);
    let past = |what: String| GltfError::AccessorPastBuffer { accessor: index, what };
    let view_end = view.offset().checked_add(view.length()).ok_or_else(|| past("view end overflows".into()))?;
    if view_end > buffer_len {
        return Err(past(format!(
            "buffer view {} ends at byte {view_end}, past buffer {} of {buffer_len} bytes",
            view.index(),
            view.buffer().index()
        )));
    }
    let size = accessor.size();
    let stride = view.stride().unwrap_or(size);
    if stride < size {
        return Err(past(format!("stride {stride} below the element size {size}")));
    }
    if accessor.count() == 0 {
        return Ok(());
    }
    let end = (accessor.count() - 1)
        .checked_mul(stride)
        .and_then(|v| v.checked_add(size))
        .and_then(|v| v.checked_add(accessor.offset()))
        .ok_or_else(|| past("element end overflows".into()))?;
    if end > view.length() {
        return Err(past(format!(
            "{} elements of {size} bytes (stride {stride}) from byte {} end at {end}, past buffer view {} of {} bytes",
            accessor.count(),
            accessor.offset(),
            view.index(),
            view.length()
        )));
    }
    Ok(())
}

fn nodes(doc: &gltf::Gltf) -> Vec<RefNode> {
    let mut parent = vec![None; doc.nodes().len()];
    for n in doc.nodes() {
        for c in n.children() {
            parent[c.index()] = Some(n.index());
        }
    }
    doc.nodes()
        .map(|n| {
            let (t, r, s) = n.transform().decomposed();
            let local = DMat4::from_scale_rotation_translation(
                DVec3::from_array(s.map(f64::from)),
                DQuat::from_array(r.map(f64::from)).normalize(),
                DVec3::from_array(t.map(f64::from)),
            );
            let kind = if n.skin().is_some() {
                "skinned mesh"
            } else if n.mesh().is_some() {
                "mesh"
            } else if n.camera().is_some() {
                "camera"
            } else {
                "node"
            };
            RefNode {
                name: n.name().unwrap_or_default().to_string(),
                kind: kind.into(),
                parent: parent[n.index()],
                local,
                pre_rotation: [0.0; 3],
                geometric: DMat4::IDENTITY,
                mesh: None,
                offset: n.index() as u64,
                fbx_transform: None,
            }
        })
        .collect()
}

fn tracks(doc: &gltf::Gltf, buffers: &[Vec<u8>]) -> Result<Vec<RefTrack>, GltfError> {
    let mut out = Vec::new();
    for animation in doc.animations() {
        let clip = animation.name().map(str::to_string);
        for channel in animation.channels() {
            let sampler = channel.sampler();
            check_accessor(&sampler.input(), buffers)?;
            check_accessor(&sampler.output(), buffers)?;
            let reader = channel.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let times: Vec<f64> = reader.read_inputs().map(|i| i.map(f64::from).collect()).unwrap_or_default();
            use gltf::animation::util::ReadOutputs;
            let (path, values): (TrackPath, Vec<Vec<f64>>) = match reader.read_outputs() {
                Some(ReadOutputs::Translations(v)) => {
                    (TrackPath::Translation, v.map(|x| x.map(f64::from).to_vec()).collect())
                }
                Some(ReadOutputs::Rotations(v)) => {
                    (TrackPath::Rotation, v.into_f32().map(|x| x.map(f64::from).to_vec()).collect())
                }
                Some(ReadOutputs::Scales(v)) => (TrackPath::Scale, v.map(|x| x.map(f64::from).to_vec()).collect()),
                Some(ReadOutputs::MorphTargetWeights(v)) => {
                    let flat: Vec<f64> = v.into_f32().map(f64::from).collect();
                    let per = if times.is_empty() { 0 } else { flat.len() / times.len() };
                    (TrackPath::Weights, flat.chunks(per.max(1)).map(<[f64]>::to_vec).collect())
                }
                None => continue,
            };
            let interpolation = match sampler.interpolation() {
                gltf::animation::Interpolation::Linear => Interpolation::Linear,
                gltf::animation::Interpolation::Step => Interpolation::Step,
                gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
            };
            // Cubic spline outputs hold in-tangent, value, out-tangent per key: keep values.
            let values = if interpolation == Interpolation::CubicSpline {
                values.chunks(3).filter_map(|c| c.get(1).cloned()).collect()
            } else {
                values
            };
            if values.len() != times.len() {
                return Err(GltfError::Json(format!(
                    "animation {} channel {}: {} key times, {} values",
                    animation.index(),
                    channel.index(),
                    times.len(),
                    values.len()
                )));
            }
            out.push(RefTrack {
                node: channel.target().node().index(),
                path,
                clip: clip.clone(),
                times,
                values,
                interpolation,
                printed_error: Vec::new(),
                offset: sampler.output().index() as u64,
            });
        }
    }
    Ok(out)
}

/// Skins: per skinned node, one cluster per joint with the (primitive-concatenated) vertex
/// indices and weights that name it (weights of 0 left out).
fn skins(doc: &gltf::Gltf, buffers: &[Vec<u8>]) -> Result<Vec<RefSkin>, GltfError> {
    let mut out = Vec::new();
    for node in doc.nodes() {
        let (Some(skin), Some(mesh)) = (node.skin(), node.mesh()) else { continue };
        let joints: Vec<String> = skin.joints().map(|j| j.name().unwrap_or_default().to_string()).collect();
        let mut clusters: Vec<RefCluster> = joints
            .iter()
            .map(|bone| RefCluster {
                bone: bone.clone(),
                indices: Vec::new(),
                weights: Vec::new(),
                offset: skin.index() as u64,
            })
            .collect();
        let mut base = 0u32;
        for primitive in mesh.primitives() {
            for (semantic, accessor) in primitive.attributes() {
                if matches!(
                    semantic,
                    gltf::Semantic::Joints(_) | gltf::Semantic::Weights(_) | gltf::Semantic::Positions
                ) {
                    check_accessor(&accessor, buffers)?;
                }
            }
            let reader = primitive.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let count = reader.read_positions().map_or(0, |p| p.len()) as u32;
            let mut set = 0;
            while let (Some(j), Some(w)) = (reader.read_joints(set), reader.read_weights(set)) {
                for (v, (js, ws)) in j.into_u16().zip(w.into_f32()).enumerate() {
                    for (joint, weight) in js.iter().zip(ws) {
                        if weight <= 0.0 {
                            continue;
                        }
                        let c = clusters.get_mut(*joint as usize).ok_or_else(|| {
                            GltfError::Json(format!(
                                "skin {}: joint index {joint} outside its {} joints",
                                skin.index(),
                                joints.len()
                            ))
                        })?;
                        c.indices.push(base + v as u32);
                        c.weights.push(f64::from(weight));
                    }
                }
                set += 1;
            }
            base += count;
        }
        out.push(RefSkin { node: node.index(), clusters });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One node, one translation channel of two keys; the output accessor's count is
    /// `count` (2 fits the 24-byte view, 3 runs past it).
    fn document(count: usize) -> Vec<u8> {
        format!(
            r#"{{"asset":{{"version":"2.0"}},"nodes":[{{"name":"Box"}}],
            "buffers":[{{"uri":"b.bin","byteLength":32}}],
            "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":8}},{{"buffer":0,"byteOffset":8,"byteLength":24}}],
            "accessors":[{{"bufferView":0,"componentType":5126,"count":2,"type":"SCALAR","min":[0],"max":[1]}},
                         {{"bufferView":1,"componentType":5126,"count":{count},"type":"VEC3"}}],
            "animations":[{{"name":"Clip","channels":[{{"sampler":0,"target":{{"node":0,"path":"translation"}}}}],
                           "samplers":[{{"input":0,"output":1,"interpolation":0}}]}}]}}"#
        )
        .into_bytes()
    }

    fn buffer() -> Vec<u8> {
        [0.0f32, 1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|f| f.to_le_bytes()).collect()
    }

    #[test]
    fn a_channel_becomes_a_track_of_its_clip() {
        let data = buffer();
        let scene = read_scene(&document(2), &|_| Some(data.clone())).unwrap();
        let sampled = scene.sampled.unwrap();
        let t = &sampled.tracks[0];
        assert_eq!(
            (t.path, t.clip.as_deref(), t.times.as_slice()),
            (TrackPath::Translation, Some("Clip"), &[0.0, 1.0][..])
        );
        assert_eq!(t.values[1], vec![4.0, 5.0, 6.0]);
        assert!(sampled.time_base.contains("ordinal 0, read as LINEAR"), "{}", sampled.time_base);
    }

    #[test]
    fn an_accessor_past_its_buffer_is_a_typed_error() {
        let data = buffer();
        match read_scene(&document(3), &|_| Some(data.clone())) {
            Err(GltfError::AccessorPastBuffer { accessor: 1, what }) => {
                assert!(what.contains("past buffer view 1"), "{what}")
            }
            other => panic!("{other:?}"),
        }
        // A buffer shorter than its declared length.
        assert!(matches!(read_scene(&document(2), &|_| Some(vec![0; 8])), Err(GltfError::Buffer { index: 0, .. })));
        assert!(matches!(read_scene(b"{", &|_| None), Err(GltfError::Json(_))));
    }
}
