//! What a reference export says about the scene, whatever its format: nodes with their
//! parents and local transforms, meshes, animation curves and skin clusters — in the
//! export's own units and axes, with the settings that say what those are.

use glam::DMat4;

/// Which format the reference was read from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// Binary FBX of this version (6100, 7400 …).
    Fbx(u32),
    /// Wavefront OBJ (no hierarchy, no transforms: world-space vertices).
    Obj,
    /// DirectX `.x` (frames with matrices).
    X,
    /// 3ds Max's own ASCII export (`*3DSMAX_ASCIIEXPORT`), version ×100.
    Ase(u32),
    /// glTF 2.0 (`.gltf` + buffers), with the writer named by `asset.generator`.
    Gltf,
    /// `.3ds` keyframer tracks.
    ThreeDs,
}

impl Format {
    /// Does this format carry node names and parent links?
    pub fn has_hierarchy(&self) -> bool {
        !matches!(self, Format::Obj)
    }

    /// Does this format carry animation curves? (`.x` may, but this reader does not look.)
    pub fn has_animation(&self) -> bool {
        matches!(self, Format::Fbx(_) | Format::Ase(_) | Format::Gltf | Format::ThreeDs)
    }
}

/// Axis and unit settings the export declares (FBX `GlobalSettings`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Axes {
    /// Up axis index (0 X, 1 Y, 2 Z) and sign.
    pub up: (i64, i64),
    /// Front axis index and sign.
    pub front: (i64, i64),
    /// Coordinate (right) axis index and sign.
    pub coord: (i64, i64),
    /// The scene's up axis before the exporter converted it; `None` when the file does not
    /// say (FBX 6.0 writes only `UpAxis`).
    pub original_up: Option<(i64, i64)>,
    /// Centimetres per file unit.
    pub unit_scale: f64,
    /// Centimetres per scene unit before export.
    pub original_unit_scale: f64,
    /// Where the settings came from (`GlobalSettings` or `default: …`).
    pub source: String,
}

impl Axes {
    /// Factor from scene units to file units (`original / unit`).
    pub fn unit_factor(&self) -> f64 {
        if self.unit_scale > 0.0 && self.original_unit_scale > 0.0 {
            self.original_unit_scale / self.unit_scale
        } else {
            1.0
        }
    }
}

/// One mesh as exported: positions in the node's object space (FBX: before the geometric
/// transform), polygons as vertex index lists.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RefMesh {
    /// Vertex positions.
    pub positions: Vec<[f64; 3]>,
    /// Polygons (corner vertex indices).
    pub polygons: Vec<Vec<u32>>,
    /// First UV channel per polygon corner, when the export has one.
    pub uv: Option<Vec<[f64; 2]>>,
}

/// One exported node.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RefNode {
    /// Name as written (class suffixes such as `\0\x01Model` stripped).
    pub name: String,
    /// Node kind (`Mesh`, `Null`, `LimbNode`, `Camera` …; `Frame` for `.x`).
    pub kind: String,
    /// Parent node index; `None` for children of the scene root.
    pub parent: Option<usize>,
    /// Local transform matrix (column vectors) in file units and axes.
    #[serde(skip)]
    pub local: DMat4,
    /// Pre-rotation (degrees, XYZ), as written (the exporter's Y-up conversion sits here).
    pub pre_rotation: [f64; 3],
    /// Geometric (object-offset) transform applied to the mesh only.
    #[serde(skip)]
    pub geometric: DMat4,
    /// The mesh attached, if any.
    pub mesh: Option<RefMesh>,
    /// Where the node record is in the file (its locator).
    pub offset: u64,
    /// FBX: the properties the local matrix is built from, so that animation curves can
    /// replace `Lcl Translation / Rotation / Scaling` components at a key time.
    #[serde(skip)]
    pub fbx_transform: Option<FbxTransform>,
}

/// The FBX transform properties of a model (vectors as written; angles in degrees).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FbxTransform {
    /// `Lcl Translation`, `Lcl Rotation`, `Lcl Scaling` (indexed by channel T, R, S).
    pub lcl: [[f64; 3]; 3],
    /// `RotationOrder` (0 = XYZ).
    pub rotation_order: i64,
    /// `PreRotation`, `PostRotation`.
    pub pre: [f64; 3],
    /// `PostRotation`.
    pub post: [f64; 3],
    /// `RotationOffset`, `RotationPivot`, `ScalingOffset`, `ScalingPivot`.
    pub rotation_offset: [f64; 3],
    /// `RotationPivot`.
    pub rotation_pivot: [f64; 3],
    /// `ScalingOffset`.
    pub scaling_offset: [f64; 3],
    /// `ScalingPivot`.
    pub scaling_pivot: [f64; 3],
}

impl FbxTransform {
    /// The local matrix FBX defines:
    /// `T · Roff · Rp · Rpre · R · Rpost⁻¹ · Rp⁻¹ · Soff · Sp · S · Sp⁻¹`.
    pub fn matrix(&self) -> DMat4 {
        let t = |v: [f64; 3]| DMat4::from_translation(glam::DVec3::from_array(v));
        let r = euler_matrix(self.lcl[1], self.rotation_order);
        let pre = euler_matrix(self.pre, 0);
        let post = euler_matrix(self.post, 0);
        let s = DMat4::from_scale(glam::DVec3::from_array(self.lcl[2]));
        let (rp, sp) = (t(self.rotation_pivot), t(self.scaling_pivot));
        t(self.lcl[0])
            * t(self.rotation_offset)
            * rp
            * pre
            * r
            * post.inverse()
            * rp.inverse()
            * t(self.scaling_offset)
            * sp
            * s
            * sp.inverse()
    }

    /// Channel index of `T`, `R`, `S`.
    pub fn channel_index(channel: char) -> Option<usize> {
        match channel {
            'T' => Some(0),
            'R' => Some(1),
            'S' => Some(2),
            _ => None,
        }
    }
}

/// One animation curve.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RefCurve {
    /// Node index.
    pub node: usize,
    /// `T`, `R` or `S`.
    pub channel: char,
    /// 0 X, 1 Y, 2 Z.
    pub component: usize,
    /// Key times in FBX ticks (46 186 158 000 per second).
    pub times: Vec<i64>,
    /// Key values (file units; degrees for rotations).
    pub values: Vec<f64>,
    /// Where the curve is in the file.
    pub offset: u64,
}

/// One skin deformer: per bone, the vertices and weights.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RefSkin {
    /// The skinned mesh's node index.
    pub node: usize,
    /// Clusters: bone name, vertex indices, weights, record offset.
    pub clusters: Vec<RefCluster>,
}

/// One cluster of a skin deformer.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RefCluster {
    /// The bone's node name.
    pub bone: String,
    /// Vertex indices.
    pub indices: Vec<u32>,
    /// Weights, one per index.
    pub weights: Vec<f64>,
    /// Where the cluster is in the file.
    pub offset: u64,
}

/// A reference export, read.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RefScene {
    /// The format.
    pub format: Format,
    /// Declared axes and units (`None` when the format declares none: OBJ, `.x`).
    pub axes: Option<Axes>,
    /// Animation start time in ticks (FBX `TimeSpanStart`), when declared.
    pub start_time: Option<i64>,
    /// Nodes in file order.
    pub nodes: Vec<RefNode>,
    /// Animation curves.
    pub curves: Vec<RefCurve>,
    /// Skin deformers.
    pub skins: Vec<RefSkin>,
    /// Models kept out of `nodes`, by name: those the exporter adds itself and no Max node
    /// stands for (FBX 6.0's producer cameras and camera switcher), and FBX 6 models no
    /// connection links into the scene (`name (unlinked)`).
    pub exporter_added: Vec<String>,
    /// Half the last printed decimal of text positions (OBJ writes 4 decimals: 5e-5);
    /// `None` for binary formats, whose floats carry their own precision.
    pub position_resolution: Option<f64>,
    /// ASE and glTF: per-channel sampled tracks (FBX keeps its per-component `curves`).
    pub sampled: Option<SampledAnimation>,
}

/// The channel a sampled track drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrackPath {
    /// Local translation (3 values, file units).
    Translation,
    /// Local rotation (quaternion `x, y, z, w`, right-handed, column vectors).
    Rotation,
    /// Local scale (3 values).
    Scale,
    /// Morph target weights (one value per target).
    Weights,
}

impl TrackPath {
    /// The name reports use (`translation`, `rotation`, `scale`, `weights`).
    pub fn name(self) -> &'static str {
        match self {
            TrackPath::Translation => "translation",
            TrackPath::Rotation => "rotation",
            TrackPath::Scale => "scale",
            TrackPath::Weights => "weights",
        }
    }
}

/// How a track's value runs between its keys (the writer's declared interpolation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Interpolation {
    /// Linear (slerp for rotations).
    Linear,
    /// Held until the next key.
    Step,
    /// Cubic Hermite with stored tangents (glTF `CUBICSPLINE`: in-tangent, value,
    /// out-tangent per key).
    CubicSpline,
}

/// One sampled track: key times in seconds from the start of its clip, the value at each.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct RefTrack {
    /// Node index.
    pub node: usize,
    /// Channel.
    pub path: TrackPath,
    /// The clip (glTF `animations[].name`) this track belongs to; `None` when the file has
    /// one unnamed timeline.
    pub clip: Option<String>,
    /// Key times in seconds from the clip's start.
    pub times: Vec<f64>,
    /// Values per key (3 for translation/scale, 4 for rotation, n for weights; cubic spline
    /// keys hold only the value here).
    pub values: Vec<Vec<f64>>,
    /// Declared interpolation.
    pub interpolation: Interpolation,
    /// Per key, the error the writer's printing may have left in that key's value (ASE
    /// prints 4 decimals and its rotation keys are deltas, so the bound grows key by key);
    /// empty for binary values.
    pub printed_error: Vec<f64>,
    /// Where the track is in the file (byte offset of its record or accessor).
    pub offset: u64,
}

/// What a sampled track's times count from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TimeOrigin {
    /// Seconds from Max's time 0 (ASE: its ticks over 4800).
    MaxZero,
    /// Seconds from the start of the track's clip (glTF), which the Max scene places.
    ClipStart,
    /// Frame numbers of the Max scene from its time 0, at the scene's frame rate (`.3ds`
    /// keyframer keys, which declare no rate).
    MaxFrames,
}

/// Sampled animation of an ASE, glTF or `.3ds` file.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SampledAnimation {
    /// The tracks.
    pub tracks: Vec<RefTrack>,
    /// What the track times count from.
    pub origin: TimeOrigin,
    /// How the file's time base was read (for the report).
    pub time_base: String,
}

impl RefScene {
    /// A scene of `nodes` alone: what every reader without FBX's extras starts from (no declared
    /// axes or start time, no key curves, skins or exporter-added models, no print step, no
    /// sampled tracks); each reader then sets the fields its format does carry.
    pub fn of_nodes(format: Format, nodes: Vec<RefNode>) -> Self {
        RefScene {
            format,
            axes: None,
            start_time: None,
            nodes,
            curves: Vec::new(),
            skins: Vec::new(),
            exporter_added: Vec::new(),
            position_resolution: None,
            sampled: None,
        }
    }

    /// Does node `i` carry animation (a curve of two or more keys with different values)?
    pub fn is_animated(&self, i: usize) -> bool {
        self.curves
            .iter()
            .any(|c| c.node == i && c.times.len() >= 2 && c.values.iter().any(|v| (v - c.values[0]).abs() > 1e-9))
    }

    /// Node `i`'s local matrix at FBX time `time` built from its key values alone: every
    /// curve of the node must hold a key at `time` or be constant (the file's own
    /// interpolation between keys is not modelled, so other times are not reconstructed);
    /// components without a curve keep their property value. `None` when some curve has no
    /// key there, or the node has no FBX transform.
    pub fn matrix_at(&self, i: usize, time: i64) -> Option<DMat4> {
        let mut transform = self.nodes.get(i)?.fbx_transform.clone()?;
        for c in self.curves.iter().filter(|c| c.node == i && !c.values.is_empty()) {
            let channel = FbxTransform::channel_index(c.channel)?;
            let value = match c.times.iter().position(|&t| t == time) {
                Some(k) => *c.values.get(k)?,
                None if c.values.iter().all(|v| (v - c.values[0]).abs() <= 1e-12) => c.values[0],
                None => return None,
            };
            transform.lcl[channel][c.component.min(2)] = value;
        }
        Some(transform.matrix())
    }

    /// Key times of node `i`'s curves (sorted, without repeats).
    pub fn key_times(&self, i: usize) -> Vec<i64> {
        let mut times: Vec<i64> = self.curves.iter().filter(|c| c.node == i).flat_map(|c| c.times.clone()).collect();
        times.sort_unstable();
        times.dedup();
        times
    }

    /// Node index by exact name.
    pub fn node_by_name(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| n.name == name)
    }
}

/// FBX ticks per second.
pub const FBX_TICKS_PER_SECOND: i64 = 46_186_158_000;

/// 3ds Max ticks (4800 per second) of an FBX time: one Max tick is 9 622 116.25 FBX ticks, so
/// the result is fractional in general (exactly a whole tick for whole frames at 30 fps).
pub fn max_ticks(fbx_time: i64) -> f64 {
    fbx_time as f64 * 4800.0 / FBX_TICKS_PER_SECOND as f64
}

/// Rotation matrix of FBX Euler angles in degrees for rotation order `order` (0 = XYZ:
/// X applied first, so `R = Rz · Ry · Rx` in column vectors).
pub fn euler_matrix(deg: [f64; 3], order: i64) -> DMat4 {
    let [x, y, z] = deg.map(f64::to_radians);
    let (rx, ry, rz) = (DMat4::from_rotation_x(x), DMat4::from_rotation_y(y), DMat4::from_rotation_z(z));
    match order {
        1 => ry * rz * rx, // XZY
        2 => rx * rz * ry, // YZX
        3 => rz * rx * ry, // YXZ
        4 => ry * rx * rz, // ZXY
        5 => rx * ry * rz, // ZYX
        _ => rz * ry * rx, // XYZ
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    #[test]
    fn xyz_order_applies_x_first() {
        // 90° about X then 90° about Z: X→X→Y, Y→Z→Z.
        let m = euler_matrix([90.0, 0.0, 90.0], 0);
        assert!((m.transform_vector3(DVec3::X) - DVec3::Y).length() < 1e-12);
        assert!((m.transform_vector3(DVec3::Y) - DVec3::Z).length() < 1e-12);
    }

    #[test]
    fn unit_factor_is_original_over_file_units() {
        let axes = Axes {
            up: (1, 1),
            front: (2, 1),
            coord: (0, 1),
            original_up: Some((2, 1)),
            unit_scale: 1.0,
            original_unit_scale: 2.54,
            source: "test".into(),
        };
        assert_eq!(axes.unit_factor(), 2.54);
    }
}
