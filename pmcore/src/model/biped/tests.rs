//! Unit tests of the Biped decoder on hand-worked records of `Female_Adult_16.max` (FA16:
//! `biped/rocketbox/…/Female_Adult_16/Source/Female_Adult_16.max`, Biped object storage
//! 429, chunk id 0x0014, Scene root 0x2017). The bytes were read with the independent reader
//! (`scripts/research/maxchunks.py`) and each value checked against `Female_Adult_16.fbx`
//! (`docs/biped-format-notes.md` §4): e.g. thigh length 42.60599 = L Calf T.x, COM height
//! 92.32903 = Bip01 T.y.
use super::*;

/// Equal to the 6–7 digits the notes print (the stored floats are the f32 nearest those).
fn near(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 2e-6 * y.abs().max(1.0))
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

fn ints(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

/// FA16's 0x0100, verbatim: `4 4 3 3 3 3 1 1 3 0 1 … 5 1 172.708 0`.
const LINKS_FA16: &str = "04000000040000000300000003000000030000000300000001000000010000000300000000000000\
    010000000100000001000000010000000100000001000000010000000000000000000000000000000000000000000000\
    050000000100000033b52c4300000000";
/// FA16's 0x006c: figure COM (0, 92.32903, 0), quaternion (−0, 0.707106, −0, 0.707107).
const COM_FA16: &str =
    "000000000000000000000000000000000000000076a8b842000000000000803f00000080e604353f00000080f704353f";
/// FA16's 0x000b: 9, lengths 12.4091 12.1926 12.4308, identity, translation (−0.150675, 12.0265, 0).
const SPINE_FA16: &str = "09000000aa8b4641131543417be446410000803f000000000000000000000000000000000000803f00000000\
    0000000000000000000000000000803f000000008c4a1abe826c4041000000000000803f";
/// FA16's 0x000d: 3, neck length 7.03016, identity, translation (−2.70001, 4.72303, −9e-6).
const NECK_FA16: &str = "0300000016f7e0400000803f000000000000000000000000000000000000803f000000000000000000000000\
    000000000000803f00000000fbcc2cc010239740b5fe16b70000803f";
/// FA16's 0x0067: 9, then (0.0225954, −0, −0), (0.0860715, −0, −0), (0.052284, −0, −0), 4 zeros.
const SPINE_ANGLES_FA16: &str = "09000000161ab93c00000080000000804246b03d0000008000000080b927563d0000008000000080\
    00000000000000000000000000000000";
/// FA16's 0x0110: (id, link) → node, 56 slots then 13 nubs.
const NODE_TABLE_FA16: [i32; 69] = [
    1161, 1172, 1183, 1194, 1425, 1436, 1447, 1458, 1205, 1216, 1227, 1249, 1260, 1271, 1293, 1304, 1315, 1337, 1348,
    1359, 1381, 1392, 1403, 1469, 1480, 1491, 1513, 1524, 1535, 1557, 1568, 1579, 1601, 1612, 1623, 1645, 1656, 1667,
    1689, 1700, 1711, 1744, 1755, 1766, 1722, 1777, 471, 482, 493, 515, 460, 446, 446, 446, 449, 504, 1502, 1546, 1590,
    1634, 1678, 1238, 1282, 1326, 1370, 1414, 1733, 1788, 526,
];

/// One half of FA16's 0x000f (29 floats): side 8.836848, thigh 42.605991, calf 40.045403,
/// one toe (1 link) whose matrix translation is (9.969470, 13.370844, 0) = L Toe0 T (x, y).
fn leg_half() -> Vec<u8> {
    let mut v = floats(&[
        0.0, 8.836_848, 42.605_99, 40.045_403, 0.096_386, 0.036_145, 8.235_647, 9.969_47, 4.456_946, 13.370_844,
    ]);
    v.extend(ints(&[1, 1]));
    let mut m = [0.0f32; 16];
    (m[0], m[5], m[10], m[15], m[12], m[13]) = (1.0, 1.0, 1.0, 1.0, 9.969_47, 13.370_844);
    v.extend(floats(&m));
    v.extend(floats(&[4.0]));
    v
}

/// 120 floats with FA16's knee 3.1405010, thigh (−0.139638, −0.023356, −0.03469, 0.989319)
/// and foot quaternions at [0], [2..5], [28..31]; zeros elsewhere (not read).
fn leg_pose_half(foot: [f32; 4]) -> Vec<f32> {
    let mut h = vec![0.0; 120];
    h[0] = 3.140_501;
    h[2..6].copy_from_slice(&[-0.139_638, -0.023_356, -0.034_69, 0.989_319]);
    h[28..32].copy_from_slice(&foot);
    h
}

/// The FA16 figure records this decoder reads, as children of a 0x0014 object.
pub(crate) fn fa16_object() -> Chunk<'static> {
    let mut legs = leg_half();
    legs.extend(leg_half());
    let mut leg_pose = leg_pose_half([-0.087_703, 0.088_897, 0.695_294, 0.707_794]);
    leg_pose.extend(leg_pose_half([0.087_703, -0.088_897, 0.695_294, 0.707_794]));
    let mut head = floats(&[0.0, 0.0, 0.079_221, 0.996_857]);
    head.extend([0u8; 64]);
    let mut neck_angles = floats(&[f32::from_bits(3), -0.383_761, -0.0, -0.0]);
    neck_angles.extend([0u8; 80]);
    Chunk::container(
        0x0014,
        vec![
            Chunk::leaf(c::LINKS, hex(LINKS_FA16)),
            Chunk::leaf(c::NODE_TABLE, ints(&NODE_TABLE_FA16)),
            Chunk::leaf(c::LIVE_MARK, ints(&[1, 1])),
            Chunk::leaf(c::SPINE, hex(SPINE_FA16)),
            Chunk::leaf(c::NECK, hex(NECK_FA16)),
            Chunk::leaf(c::LEGS, legs),
            Chunk::leaf(c::ARMS, Vec::new()),
            Chunk::leaf(c::HEAD, head),
            Chunk::leaf(c::NECK_ANGLES, neck_angles),
            Chunk::leaf(c::SPINE_ANGLES, hex(SPINE_ANGLES_FA16)),
            Chunk::leaf(c::LEG_POSE, floats(&leg_pose)),
            Chunk::leaf(c::COM, hex(COM_FA16)),
            Chunk::leaf(c::BODY_TYPE, ints(&[0])),
            Chunk::leaf(c::ARM_POSE, Vec::new()),
            Chunk::leaf(c::XTRA_DEFS, ints(&[0])),
            Chunk::leaf(c::XTRA_NODES, ints(&[0])),
            // FA16's 0x000c: the head length 19.274731 (= `Bip01 Head`'s 0x096c x).
            Chunk::leaf(c::HEAD_LENGTH, floats(&[19.274_73])),
        ],
    )
}

pub(crate) const FA16_AT: ObjectAt = ObjectAt { root_id: 0x2017, storage_index: 429 };

#[test]
#[allow(clippy::approx_constant)] // 0.707106 / 0.707107 are the stored floats, not 1/√2
fn fa16_figure_records_decode_to_the_fbx_values() {
    let s = BipedSystem::decode(&fa16_object(), FA16_AT).unwrap();
    assert_eq!(s.links.links[..12], [4, 4, 3, 3, 3, 3, 1, 1, 3, 0, 1, 1]);
    assert_eq!((s.links.fingers, s.links.toes), (5, 1));
    assert!(near(&[s.links.height], &[172.708]));
    assert_eq!(s.body_type, Some(0));
    // COM height = Bip01 T.y 92.32903; quaternion = −90° about Z in NeL's frame.
    assert!(near(&s.com.position, &[0.0, 92.329_03, 0.0]), "{:?}", s.com);
    assert!(near(&s.com.rotation, &[-0.0, 0.707_106, -0.0, 0.707_107]), "{:?}", s.com);
    // Spine lengths = Spine1 T.x, Spine2 T.x (to 8e-4: open question 1) and the neck link.
    assert!(near(&s.spine.lengths, &[12.409_098, 12.192_645, 12.430_781]), "{:?}", s.spine);
    assert!(near(&s.neck.lengths, &[7.030_16]), "{:?}", s.neck);
    assert_eq!(s.head_length, Some(19.274_73));
    assert!(near(&s.neck.matrix[12..15], &[-2.700_01, 4.723_03, -9e-6]), "{:?}", s.neck);
    let firsts: Vec<f32> = s.spine_angles.iter().map(|a| a[0]).collect();
    assert!(near(&firsts, &[0.022_595_4, 0.086_071_5, 0.052_284]), "{:?}", s.spine_angles);
    assert!(near(&s.neck_angles[0], &[-0.383_761, 0.0, 0.0]), "{:?}", s.neck_angles);
    let legs = s.legs.as_ref().unwrap();
    assert!(near(&[legs.left.side_offset, legs.left.thigh, legs.left.calf], &[8.836_848, 42.605_99, 40.045_403]));
    assert_eq!(legs.right.toes[0].matrix[12..14], [9.969_47, 13.370_844]);
    assert_eq!(s.arms, None, "an empty 0x0010 is a figure without arms");
    let pose = s.leg_pose.as_ref().unwrap();
    assert_eq!(pose.left.knee, 3.140_501);
    assert_eq!(pose.right.foot[0], -0.087_703, "the first half is the right side");
}

#[test]
fn fa16_node_table_names_the_nodes_0x0200_names() {
    let s = BipedSystem::decode(&fa16_object(), FA16_AT).unwrap();
    // FA16: Pelvis node 460 has 0x0200 (11, 0); L Thigh node 1689 (4, 0); the COM 446 is (12..14, 0).
    assert_eq!(s.node_of(bone::PELVIS, 0), Some(460));
    assert_eq!(s.node_of(bone::L_LEG, 0), Some(1689));
    assert_eq!([12, 13, 14].map(|id| s.node_of(id, 0)), [Some(446); 3]);
    assert_eq!(s.node_of(bone::HEAD_NUB, 0), Some(526));
    assert_eq!(s.node_of(bone::L_LEG, 3), None);
}

#[test]
fn the_live_block_after_the_last_0x0108_wins() {
    // A Copy Collection before 0x0108 stores another COM; the live one is read.
    let mut object = fa16_object();
    let stale = Chunk::leaf(c::COM, floats(&[0.0; 12]));
    if let crate::chunk::Body::Container(kids) = &mut object.body {
        kids.insert(0, stale);
    }
    let s = BipedSystem::decode(&object, FA16_AT).unwrap();
    assert!(near(&[s.com.position[1]], &[92.329_03]));
}

fn without(id: u16) -> Chunk<'static> {
    let mut object = fa16_object();
    if let crate::chunk::Body::Container(kids) = &mut object.body {
        kids.retain(|k| k.id != id);
    }
    object
}

/// FA16's xtras `MJaw` (10), `MTongue` (13) and `LEye` (2), renumbered 0, 1, 2: the
/// 0x0022 records verbatim but `MTongue`'s parent (210 → 200, `MJaw`'s new id), their
/// 0x0073 angles and a 0x0205 list (FA16's node pairs (581, 592), (625, 636), (559, 570)).
pub(crate) fn fa16_with_three_xtras() -> Chunk<'static> {
    const MJAW: &str = "030000000be36f410000803f000000000000000000000000000000000000803f000000000000000000000000\
        000000000000803f000000000e15933f7db34240074573380000803f0a000000000000000000000001000000040000004d004a\
        00610077000000000000000000";
    const MTONGUE: &str = "03000000713d1040e1f1adbe5dc3703f3b6d0d3c0000000033c570bf8cf5adbe724d013b000000000bed9c3b\
        5a0ef4bb72fd7f3f00000000ec18c9bf97adf7c037c779bd0000803fc8000000000000000000000002000000070000004d0054\
        006f006e006700750065000000000000000000";
    const LEYE: &str = "03000000bc9320400000803f000000000000000000000000000000000000803f000000000000000000000000\
        000000000000803f00000000d0e0e040074b23412a0040c00000803f0a000000000000000000000001000000040000004c0045\
        00790065000100000014000000";
    let defs = [ints(&[3]), hex(MJAW), hex(MTONGUE), hex(LEYE)].concat();
    let angles = [
        "03000000706d91401746b33c00d0f23c00000000000000000000000000000000",
        "030000007235c8bf7129a5bd2e73cbbd00000000000000000000000000000000",
        "03000000d25eb3bfeffe9637719b8e3700000000000000000000000000000000",
    ]
    .map(hex)
    .concat();
    let mut object = replaced(c::XTRA_DEFS, defs);
    if let crate::chunk::Body::Container(kids) = &mut object.body {
        kids.retain(|k| k.id != c::XTRA_NODES);
        kids.push(Chunk::leaf(c::XTRA_ANGLES, angles));
        kids.push(Chunk::leaf(c::XTRA_NODES, ints(&[3, 1, 581, 592, 1, 625, 636, 1, 559, 570])));
    }
    object
}

pub(crate) fn replaced(id: u16, payload: Vec<u8>) -> Chunk<'static> {
    replaced_in(fa16_object(), id, payload)
}

/// `object` with chunk `id`'s payload replaced.
pub(crate) fn replaced_in(mut object: Chunk<'static>, id: u16, payload: Vec<u8>) -> Chunk<'static> {
    if let crate::chunk::Body::Container(kids) = &mut object.body {
        for k in kids.iter_mut().filter(|k| k.id == id) {
            *k = Chunk::leaf(id, payload.clone());
        }
    }
    object
}

#[test]
fn a_missing_com_is_named_with_the_object_path() {
    let e = BipedSystem::decode(&without(c::COM), FA16_AT).unwrap_err();
    assert_eq!(
        e,
        BipedError::Missing {
            path: ChunkPath("Scene/0x2017/[429]0x0014".into()),
            chunk: c::COM,
            what: "figure centre of mass"
        }
    );
}

#[test]
fn a_truncated_record_names_its_chunk_path_and_offset() {
    let e = BipedSystem::decode(&replaced(c::COM, hex(&COM_FA16[..80])), FA16_AT).unwrap_err();
    let BipedError::Truncated { path, chunk, offset, needed, len, .. } = e else { panic!("{e:?}") };
    assert_eq!((path.as_str(), chunk, offset, needed, len), ("Scene/0x2017/[429]0x0014/[11]0x006c", c::COM, 40, 4, 40));
    // Two halves of 12 floats: the toe block that half's count announces runs past the end.
    let short_legs = BipedSystem::decode(&replaced(c::LEGS, [&leg_half()[..48], &leg_half()[..48]].concat()), FA16_AT);
    assert!(matches!(short_legs, Err(BipedError::Truncated { chunk: c::LEGS, .. })), "{short_legs:?}");
}

#[test]
fn a_node_table_of_another_length_than_the_links_is_refused() {
    let e = BipedSystem::decode(&replaced(c::NODE_TABLE, ints(&NODE_TABLE_FA16[..68])), FA16_AT).unwrap_err();
    assert!(matches!(e, BipedError::Invalid { chunk: c::NODE_TABLE, .. }), "{e:?}");
}

#[test]
fn a_bipslave_naming_a_missing_slot_is_an_error() {
    let system = BipedSystem::decode(&fa16_object(), FA16_AT).unwrap();
    let ctl = |bone: i32, link: i32| Chunk::container(0x0042, vec![Chunk::leaf(c::SLAVE_BONE, ints(&[bone, link]))]);
    let object = |chunk| SceneObject { storage_index: 1687, chunk, class: None };
    let at = ObjectAt { root_id: 0x2017, storage_index: 1687 };
    // FA16's L Thigh controller #1687 drives node 1689 with (4, 0).
    let good = ctl(4, 0);
    assert_eq!(slave_node(&system, 1689, "Bip01 L Thigh".into(), &object(&good), at).unwrap().bone, 4);
    let missing = ctl(4, 7);
    let e = slave_node(&system, 1689, "Bip01 L Thigh".into(), &object(&missing), at).unwrap_err();
    assert!(matches!(e, BipedError::SlaveSlot { bone: 4, link: 7, node: 1689, .. }), "{e:?}");
    assert_eq!(e.to_string().split(':').next(), Some("Scene/0x2017/[1687]0x0042/[0]0x0200"));
    let other = ctl(11, 0);
    assert!(matches!(
        slave_node(&system, 1689, "Bip01 L Thigh".into(), &object(&other), at),
        Err(BipedError::SlaveSlot { bone: 11, .. })
    ));
    let short = Chunk::container(0x0042, vec![Chunk::leaf(c::SLAVE_BONE, ints(&[4]))]);
    assert!(matches!(
        slave_node(&system, 1689, "x".into(), &object(&short), at),
        Err(BipedError::Truncated { offset: 4, .. })
    ));
}

#[test]
fn fa16_first_xtra_definition_reads_to_its_name() {
    // FA16's 0x0022 starts: 28 xtras; LCaninus: 3 angles, length 1.314407, identity with
    // translation (10.0362, 5.7984, −2.8118), parent (10, 0), 0, 1, name "LCaninus", (1, 18).
    let defs = hex("1c00000003000000753ea83f0000803f000000000000000000000000000000000000803f000000000000000000000000\
         000000000000803f0000000092942041768cb9405af433c00000803f0a000000000000000000000001000000080000004c00\
         430061006e0069006e00750073000100000012000000");
    let mut one = defs;
    one[0] = 1;
    let r = Record { bytes: &one, path: ChunkPath("t".into()), chunk: c::XTRA_DEFS, header: None };
    let x = xtras(Some(r), None, None).unwrap();
    assert_eq!(x.len(), 1);
    assert_eq!((x[0].name.as_str(), x[0].parent, x[0].lengths.len()), ("LCaninus", (10, 0), 1));
    let r = Record { bytes: &one[..60], path: ChunkPath("t".into()), chunk: c::XTRA_DEFS, header: None };
    assert!(matches!(xtras(Some(r), None, None), Err(BipedError::Truncated { .. })));
}

#[test]
fn fa16_xtras_read_their_angles_parent_and_mirror() {
    let s = BipedSystem::decode(&fa16_with_three_xtras(), FA16_AT).unwrap();
    let names: Vec<&str> = s.xtras.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["MJaw", "MTongue", "LEye"]);
    assert_eq!((s.xtras[1].parent, s.xtras[1].mirror), ((200, 0), (0, 0)));
    // LEye is the left of a pair whose right is FA16's xtra 20 (REye).
    assert_eq!((s.xtras[2].parent, s.xtras[2].mirror), ((10, 0), (1, 20)));
    assert!(near(&s.xtras[2].angles[0], &[-1.401_331_2, 1.8e-5, 1.7e-5]), "{:?}", s.xtras[2].angles);
    assert!(near(&s.xtras[1].matrix[12..15], &[-1.571_073, -7.739_94, -0.060_981]));
    assert_eq!(s.node_of(bone::XTRA + 1, 0), Some(625));
    assert_eq!(s.node_of(bone::XTRA_NUB + 2, 0), Some(570));
}

#[test]
fn xtra_angles_of_another_link_count_are_refused() {
    // MJaw has 1 link: 6 angles (2 links) in its 0x0073 entry is a layout no rig has.
    let object = replaced_in(fa16_with_three_xtras(), c::XTRA_ANGLES, ints(&[6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]));
    let e = BipedSystem::decode(&object, FA16_AT).unwrap_err();
    assert!(matches!(e, BipedError::Invalid { chunk: c::XTRA_ANGLES, offset: 0, .. }), "{e:?}");
}

proptest::proptest! {
    #[test]
    fn any_record_bytes_decode_or_are_refused(id in proptest::sample::select(vec![
        c::LINKS, c::NODE_TABLE, c::SPINE, c::NECK, c::LEGS, c::ARMS, c::COM, c::HEAD, c::NECK_ANGLES,
        c::SPINE_ANGLES, c::LEG_POSE, c::ARM_POSE, c::XTRA_DEFS, c::XTRA_NODES,
    ]), bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..300)) {
        // Never a panic, whatever one record holds.
        let _ = BipedSystem::decode(&replaced(id, bytes), FA16_AT);
    }
}

#[test]
fn fa16_arm_pose_halves_hold_elbow_quaternions_and_finger_bends() {
    // FA16 0x006a, right half: elbow 2.732956 (Forearm Lcl Rz + π), upper arm (−0.016232,
    // 0.403985, −0.002264, 0.914618), hand (−0.038997, −0.114479, 0.017172, 0.992511);
    // finger 0's block at [46]: base quaternion identity, bends [85] 0.24863 and [88] 0.05592
    // (FBX R Finger01 / Finger02 local Rz).
    let mut half = vec![0.0f32; 290];
    half[0] = 2.732_956;
    half[2..6].copy_from_slice(&[-0.016_232, 0.403_985, -0.002_264, 0.914_618]);
    half[28..32].copy_from_slice(&[-0.038_997, -0.114_479, 0.017_172, 0.992_511]);
    half[50] = 1.0;
    (half[85], half[88]) = (0.248_63, 0.055_92);
    let mut both = half.clone();
    both.extend(vec![0.0; 290]);
    let r = Record { bytes: &floats(&both), path: ChunkPath("t".into()), chunk: c::ARM_POSE, header: None };
    let pose = sides(&r, arm_pose).unwrap().unwrap();
    assert_eq!(pose.right.elbow, 2.732_956);
    assert_eq!(pose.right.fingers.len(), 5, "(290 − 46) / 46 finger blocks per half");
    assert_eq!(pose.right.fingers[0], FingerPose { base: [0.0, 0.0, 0.0, 1.0], bends: [0.248_63, 0.055_92] });
    assert_eq!(pose.left.fingers[0].bends, [0.0, 0.0]);
}

#[test]
fn keys_are_counted_in_the_live_blocks_time_chunks() {
    // A time chunk holds 40 bytes + 40 per key (Rocketbox: 40 B, no keys; LD35 player's
    // 0x012d: 2120 B = 52 keys). One before the last 0x0108 belongs to a stored collection.
    assert_eq!(BipedSystem::decode(&fa16_object(), FA16_AT).unwrap().keys, 0);
    let mut object = fa16_object();
    if let crate::chunk::Body::Container(kids) = &mut object.body {
        kids.insert(0, Chunk::leaf(0x012d, vec![0; 40 + 40 * 7]));
        kids.push(Chunk::leaf(0x012c, vec![0; 200]));
        kids.push(Chunk::leaf(0x012d, vec![0; 2120]));
        kids.push(Chunk::leaf(0x0139, vec![0; 40]));
    }
    assert_eq!(BipedSystem::decode(&object, FA16_AT).unwrap().keys, 52);
}
