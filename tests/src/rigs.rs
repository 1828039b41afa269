//! The hand-built rig the skel tests share (no public file holds a `Bip01` rig): a `.max`
//! assembled from the documented chunk layouts — a RootNode, five nodes `Bip01`,
//! `Bip01 Spine`, `Bip01 Head`, `Bip01 Arm`, `Bip01 Tail`, each with a Position/Rotation/Scale
//! controller whose Bezier Position (0x2503), TCB Rotation (0x2504, Max quaternion) and Bezier
//! Scale (0x2505) hold the defaults below, plus bone-LOD AppData on two nodes — and the
//! expected `.skel` bytes computed by hand from the NeL format (digest §7.1): world matrices
//! and their inverses worked out on paper for transforms chosen to be exact in `f32`.
//! Used as the independent T3 reference by `export_skel` and the farm's gate tests.

use crate::fixtures::{container, i32s, leaf, u32s, utf16, SceneBuilder};

/// ClassId of Position/Rotation/Scale.
pub const PRS: [u32; 2] = [0x2005, 0];

/// One bone of the hand-built rig: name, parent (index into the list, or None for Bip01),
/// position, Max-convention rotation quaternion, scale, LOD AppData text.
pub struct RigNode {
    pub name: &'static str,
    pub parent: Option<usize>,
    pub pos: [f32; 3],
    pub max_quat: [f32; 4],
    pub scale: [f32; 3],
    pub lod: Option<&'static str>,
}

/// The five nodes of the rig.
pub fn rig() -> Vec<RigNode> {
    let id = [0.0, 0.0, 0.0, 1.0];
    vec![
        RigNode { name: "Bip01", parent: None, pos: [10.0, 0.0, 5.0], max_quat: id, scale: [1.0; 3], lod: None },
        // 180° about Z (either sign of the axis is the same turn).
        RigNode {
            name: "Bip01 Spine",
            parent: Some(0),
            pos: [0.0, 0.0, 4.0],
            max_quat: [0.0, 0.0, 1.0, 0.0],
            scale: [1.0; 3],
            lod: Some("20"),
        },
        RigNode { name: "Bip01 Head", parent: Some(1), pos: [1.0, 2.0, 3.0], max_quat: id, scale: [2.0; 3], lod: None },
        RigNode { name: "Bip01 Arm", parent: Some(1), pos: [0.0, 3.0, 0.0], max_quat: id, scale: [1.0; 3], lod: None },
        RigNode {
            name: "Bip01 Tail",
            parent: Some(0),
            pos: [-3.0, 0.0, 0.0],
            max_quat: id,
            scale: [1.0; 3],
            lod: Some("12.5"),
        },
    ]
}

/// Little-endian `f32` bytes.
pub fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The rig as a `.max` file. `extra_class` adds one more class instance (e.g. a biped system).
pub fn rig_max(extra_class: Option<([u32; 2], u32, &str)>) -> Vec<u8> {
    rig_max_of(rig(), extra_class)
}

/// `nodes` as a `.max` file (see [`rig_max`]).
pub fn rig_max_of(nodes: Vec<RigNode>, extra_class: Option<([u32; 2], u32, &str)>) -> Vec<u8> {
    let mut s = SceneBuilder::new();
    let root_class = s.class(-1, [2, 0], 1, "RootNode");
    let node_class = s.class(-1, [1, 0], 1, "Node");
    let prs = s.class(-1, PRS, 0x9008, "Position/Rotation/Scale");
    let bez_pos = s.class(-1, [0x2008, 0], 0x900b, "Bezier Position");
    let tcb_rot = s.class(-1, [0x442313, 0], 0x900c, "TCB Rotation");
    let bez_scale = s.class(-1, [0x2010, 0], 0x900d, "Bezier Scale");
    let root = s.object(root_class, &[leaf(0x0100, &i32s(&[0]))]);
    let mut node_ids = Vec::new();
    for n in nodes {
        let p = s.object(bez_pos, &[leaf(0x2503, &f32s(&n.pos))]);
        let r = s.object(tcb_rot, &[leaf(0x2504, &f32s(&n.max_quat))]);
        let mut scale = n.scale.to_vec();
        scale.extend([0.0, 0.0, 0.0, 1.0]);
        let sc = s.object(bez_scale, &[leaf(0x2505, &f32s(&scale))]);
        let ctrl = s.object(prs, &[leaf(0x2034, &i32s(&[p, r, sc]))]);
        let parent = n.parent.map(|i| node_ids[i]).unwrap_or(root);
        let mut children =
            vec![leaf(0x2034, &i32s(&[ctrl, -1])), leaf(0x0960, &i32s(&[parent, 0])), leaf(0x0962, &utf16(n.name))];
        if let Some(text) = n.lod {
            // AppData: count, then entry = key (class a, b, superclass, sub id, size) + value.
            let key = u32s(&[0x04d64858, 0x16d1751d, 0x1020, 1423062615, text.len() as u32]);
            children.push(container(
                0x2150,
                &[leaf(0x0100, &u32s(&[1])), container(0x0110, &[leaf(0x0120, &key), leaf(0x0130, text.as_bytes())])],
            ));
        }
        node_ids.push(s.object(node_class, &children));
    }
    if let Some((id, superclass, name)) = extra_class {
        let c = s.class(-1, id, superclass, name);
        s.object(c, &[]);
    }
    s.max_bytes()
}

/// A bone as the expected file states it.
pub struct ExpectedBone {
    pub name: &'static str,
    pub inv_bind_rows: [[f32; 4]; 3],
    pub father: i32,
    pub lod: f32,
    pub pos: [f32; 3],
    pub quat: [f32; 4],
    pub scale: [f32; 3],
}

/// The expected bones, worked out by hand. Worlds (column vectors, W = parent · T · R · S):
/// Bip01 = T(10,0,5); Spine = T(10,0,9)·Rz180; Head = T(9,−2,12)·diag(−2,−2,2);
/// Arm = T(10,−3,9)·Rz180; Tail = T(7,0,5). InvBindPos = inverse of each: rotation part
/// transposed / inverted, translation −L⁻¹·t. DefaultRotQuat = stored Max quaternion with
/// w negated (identity → (0,0,0,−1); (0,0,1,0) → (0,0,1,−0)). Root reset on Bip01.
/// LODs: Spine 20 → its children Head and Arm inherit 20; Tail 12.5.
pub fn expected_bones() -> Vec<ExpectedBone> {
    let nw = [0.0, 0.0, 0.0, -1.0];
    vec![
        ExpectedBone {
            name: "Bip01",
            inv_bind_rows: [[1.0, 0.0, 0.0, -10.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -5.0]],
            father: -1,
            lod: 0.0,
            pos: [0.0; 3],
            quat: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        },
        ExpectedBone {
            name: "Bip01 Spine",
            inv_bind_rows: [[-1.0, 0.0, 0.0, 10.0], [0.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -9.0]],
            father: 0,
            lod: 20.0,
            pos: [0.0, 0.0, 4.0],
            quat: [0.0, 0.0, 1.0, -0.0],
            scale: [1.0; 3],
        },
        ExpectedBone {
            name: "Bip01 Head",
            inv_bind_rows: [[-0.5, 0.0, 0.0, 4.5], [0.0, -0.5, 0.0, -1.0], [0.0, 0.0, 0.5, -6.0]],
            father: 1,
            lod: 20.0,
            pos: [1.0, 2.0, 3.0],
            quat: nw,
            scale: [2.0; 3],
        },
        ExpectedBone {
            name: "Bip01 Arm",
            inv_bind_rows: [[-1.0, 0.0, 0.0, 10.0], [0.0, -1.0, 0.0, -3.0], [0.0, 0.0, 1.0, -9.0]],
            father: 1,
            lod: 20.0,
            pos: [0.0, 3.0, 0.0],
            quat: nw,
            scale: [1.0; 3],
        },
        ExpectedBone {
            name: "Bip01 Tail",
            inv_bind_rows: [[1.0, 0.0, 0.0, -7.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -5.0]],
            father: 0,
            lod: 12.5,
            pos: [-3.0, 0.0, 0.0],
            quat: nw,
            scale: [1.0; 3],
        },
    ]
}

/// NeL string: u32 length + bytes.
pub fn nel_string(s: &str) -> Vec<u8> {
    let mut out = (s.len() as u32).to_le_bytes().to_vec();
    out.extend(s.as_bytes());
    out
}

/// The `.skel` bytes of `bones`, written field by field from digest §7.1.
pub fn skel_bytes(bones: &[ExpectedBone]) -> Vec<u8> {
    let mut out = b"SHAP".to_vec();
    out.extend(1u64.to_le_bytes()); // poly-pointer id of the first object
    out.extend(nel_string("CSkeletonShape"));
    out.push(1); // CSkeletonShape version
    out.extend((bones.len() as i32).to_le_bytes());
    for b in bones {
        out.push(2); // CBoneBase version
        out.extend(nel_string(b.name));
        out.push(0); // CMatrix version
        out.extend(11u32.to_le_bytes()); // StateBit TRANS | ROT | SCALEANY
        out.extend(f32s(&[1.0])); // Scale33
        for r in &b.inv_bind_rows {
            out.extend(f32s(&r[..3]));
        }
        out.extend(f32s(&[b.inv_bind_rows[0][3], b.inv_bind_rows[1][3], b.inv_bind_rows[2][3]]));
        out.extend(b.father.to_le_bytes());
        out.push(0); // UnheritScale false
        out.extend(f32s(&[b.lod]));
        for v in [&b.pos[..], &[0.0, 0.0, 0.0]] {
            out.push(0);
            out.extend(f32s(v));
        }
        out.push(0);
        out.extend(f32s(&b.quat));
        for v in [&b.scale[..], &[0.0, 0.0, 0.0]] {
            out.push(0);
            out.extend(f32s(v));
        }
        out.extend(f32s(&[1.0, 1.0, 1.0])); // SkinScale
    }
    // BoneMap sorted by name.
    let map = [("Bip01", 0u32), ("Bip01 Arm", 3), ("Bip01 Head", 2), ("Bip01 Spine", 1), ("Bip01 Tail", 4)];
    out.extend((map.len() as i32).to_le_bytes());
    for (name, id) in map {
        out.extend(nel_string(name));
        out.extend(id.to_le_bytes());
    }
    // LODs: 0 (all on), 12.5 (Tail off), 20 (all but Bip01 off).
    let lods: [(f32, [u8; 5]); 3] = [(0.0, [0xFF; 5]), (12.5, [0xFF, 0xFF, 0xFF, 0xFF, 0]), (20.0, [0xFF, 0, 0, 0, 0])];
    out.extend(3i32.to_le_bytes());
    for (d, flags) in lods {
        out.push(0);
        out.extend(f32s(&[d]));
        out.extend(5i32.to_le_bytes());
        out.extend(flags);
    }
    out
}
