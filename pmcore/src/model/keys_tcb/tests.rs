use super::*;

fn key(time: i32, v: f32, tcb: Tcb) -> TcbVecKey {
    TcbVecKey { time, flags: 0, value: Vec3::splat(v), axis: Quat::IDENTITY, tcb, cache: None }
}

fn at(keys: &[TcbVecKey], tick: f64) -> f64 {
    sample_tcb_vec(keys, tick).unwrap().x
}

#[test]
fn two_neutral_keys_are_a_straight_line() {
    // Two keys, tension 0: tangents Δv at both ends, the Hermite curve is p0 + Δv·d.
    let keys = [key(0, 1.0, Tcb::default()), key(100, 3.0, Tcb::default())];
    assert!((at(&keys, 25.0) - 1.5).abs() < 1e-12);
    assert_eq!(at(&keys, -5.0), 1.0);
    assert_eq!(at(&keys, 500.0), 3.0);
}

#[test]
fn three_keys_hand_worked() {
    // Keys 0 @ 0, 10 @ 100, 0 @ 200, all neutral. Middle key: fp = fn = 1, factors ½ each,
    // tangents ½·(10 + (−10)) = 0. First key's out tangent: ½·(3·10 − 0) = 15; last key's in
    // tangent ½·(3·(−10) − 0) = −15. At tick 50 (d = ½, h = ½, ½, ⅛, −⅛):
    // 0·½ + 10·½ + 15·⅛ + 0·(−⅛) = 6.875.
    let keys = [key(0, 0.0, Tcb::default()), key(100, 10.0, Tcb::default()), key(200, 0.0, Tcb::default())];
    let t = tcb_tangents(&keys);
    assert!((t[0][1].x - 15.0).abs() < 1e-12 && t[1][0].x.abs() < 1e-12 && (t[2][0].x + 15.0).abs() < 1e-12);
    assert!((at(&keys, 50.0) - 6.875).abs() < 1e-9, "{}", at(&keys, 50.0));
    assert_eq!(at(&keys, 100.0), 10.0);
}

#[test]
fn one_tension_changed_moves_the_in_betweens() {
    // Perturbation on hand-worked values: the first key's tension 0 → 0.5 halves its out
    // tangent in the two-key case (Δv·(1 − t) = 1 instead of 2; the second key's in tangent
    // stays 2). At d = ½ the Hermite basis is (½, ½, ⅛, −⅛): 1·½ + 3·½ + 1·⅛ + 2·(−⅛) = 1.875
    // instead of 2.
    let neutral = [key(0, 1.0, Tcb::default()), key(100, 3.0, Tcb::default())];
    let tense = Tcb { tension: 0.5, ..Tcb::default() };
    let changed = [key(0, 1.0, tense), key(100, 3.0, Tcb::default())];
    assert!((at(&neutral, 50.0) - 2.0).abs() < 1e-12);
    assert!((at(&changed, 50.0) - 1.875).abs() < 1e-12, "{}", at(&changed, 50.0));
}

#[test]
fn continuity_and_bias_factors_are_hand_worked() {
    // Middle key at 100 between 0 and 300 (dtm = 150, fp = ⅔, fn = 4/3), continuity ½:
    // fp' = ⅔ + ½ − ⅓ = 5/6, fn' = 4/3 + ½ − ⅔ = 7/6; cm = ½, cp = 3/2, tm = ½, bias 0:
    // ksm = ½·½·1·5/6 = 5/24, ksp = ½·3/2·5/6 = 15/24, kdm = ½·3/2·7/6 = 21/24, kdp = 7/24.
    let tcb = Tcb { continuity: 0.5, ..Tcb::default() };
    let f = factors(&tcb, Some(0.0), 100.0, Some(300.0));
    let want = [5.0 / 24.0, 15.0 / 24.0, 21.0 / 24.0, 7.0 / 24.0];
    assert!(f.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-12), "{f:?}");
    // Bias ½ (bm = ½, bp = 3/2), neutral otherwise, even spacing: ksm = ½·3/2 = ¾, ksp = ¼.
    let f = factors(&Tcb { bias: 0.5, ..Tcb::default() }, Some(0.0), 100.0, Some(200.0));
    assert!((f[0] - 0.75).abs() < 1e-12 && (f[1] - 0.25).abs() < 1e-12, "{f:?}");
}

#[test]
fn ease_is_hand_worked() {
    // e0 = e1 = ½: k = 1; d = ¼ < e0 gives k/e0·d² = 2·1/16 = ⅛; d = ¾ gives 1 − 2·1/16 = ⅞.
    assert!((ease(0.25, 0.5, 0.5) - 0.125).abs() < 1e-12);
    assert!((ease(0.75, 0.5, 0.5) - 0.875).abs() < 1e-12);
    // No ease: identity; eases summing over 1 are normalised (1, 1 → ½, ½).
    assert_eq!(ease(0.3, 0.0, 0.0), 0.3);
    assert!((ease(0.25, 1.0, 1.0) - 0.125).abs() < 1e-12);
}

fn rot(time: i32, q: Quat) -> TcbRotKey {
    TcbRotKey { time, flags: 0, rotation: q, tcb: Tcb::default(), angle: 0.0, cache: [q; 2] }
}

#[test]
fn squad_through_evenly_turning_keys_is_a_steady_turn() {
    // 0°, 90°, 180° about Z at 0, 100, 200: the relative turns are equal, so the controls are
    // the keys themselves and the in-betweens turn at a steady rate (45° at tick 50).
    let z = |deg: f32| Quat::from_rotation_z(deg.to_radians());
    let keys = [rot(0, z(0.0)), rot(100, z(90.0)), rot(200, z(180.0))];
    let q = sample_tcb_rot(&keys, 50.0).unwrap().unwrap();
    assert!(q.angle_between(z(45.0)) < 1e-5, "{q:?}");
    let q = sample_tcb_rot(&keys, 150.0).unwrap().unwrap();
    assert!(q.angle_between(z(135.0)) < 1e-5, "{q:?}");
    // A tension of 1 on the middle key flattens its tangents: the in-between moves.
    let mut tense = keys;
    tense[1].tcb.tension = 1.0;
    let q = sample_tcb_rot(&tense, 50.0).unwrap().unwrap();
    assert!(q.angle_between(z(45.0)) > 1e-3, "{q:?}");
}

#[test]
fn a_spin_beyond_half_a_turn_is_refused() {
    let mut keys = [rot(0, Quat::IDENTITY), rot(100, Quat::from_rotation_z(0.1))];
    keys[1].angle = 4.0;
    assert_eq!(sample_tcb_rot(&keys, 50.0), Err(1));
    assert_eq!(sample_tcb_rot(&keys, 100.0), Ok(Some(keys[1].rotation)));
}

fn chunk(id: u16, bytes: Vec<u8>) -> crate::chunk::Chunk<'static> {
    crate::chunk::Chunk::container(0x2008, vec![crate::chunk::Chunk::leaf(id, bytes)])
}

proptest::proptest! {
    /// Any table bytes under the three TCB chunks read or are a typed error naming the
    /// chunk; sampling any decoded table never panics, and at a key time of a track with
    /// distinct, increasing times gives that key's value.
    #[test]
    fn any_tcb_table_reads_or_is_refused(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400), tick in -1e6f64..1e6, which in 0usize..3) {
        let id = [TCB_POSITION_KEYS, TCB_ROTATION_KEYS, TCB_SCALE_KEYS][which];
        let c = chunk(id, bytes.clone());
        let o = SceneObject { storage_index: 1, chunk: &c, class: None };
        let read = if id == TCB_ROTATION_KEYS { tcb_rot_keys(&o).map(|k| k.map(|k| k.len())) } else { tcb_vec_keys(&o).map(|k| k.map(|k| k.len())) };
        match read {
            Ok(Some(_)) => {
                if let Ok(Some(k)) = tcb_vec_keys(&o) { let _ = sample_tcb_vec(&k, tick); }
                if let Ok(Some(k)) = tcb_rot_keys(&o) { let _ = sample_tcb_rot(&k, tick); }
            }
            Ok(None) => proptest::prop_assert!(false, "the table is there"),
            Err(ControllerError::BadValue { chunk, .. }) => proptest::prop_assert_eq!(chunk, id),
            Err(e) => proptest::prop_assert!(false, "unexpected {e}"),
        }
    }

    /// Random neutral-to-extreme TCB tracks: at every key time the value is the key's, and
    /// between keys the value stays finite.
    #[test]
    fn key_times_give_key_values(values in proptest::collection::vec(-1e3f32..1e3, 1..8), t in -1f32..1.0, c in -1f32..1.0, b in -1f32..1.0, u in 0f64..1.0) {
        let tcb = Tcb { tension: t, continuity: c, bias: b, ease_in: 0.0, ease_out: 0.0 };
        let keys: Vec<TcbVecKey> = values.iter().enumerate().map(|(i, v)| key(i as i32 * 160, *v, tcb)).collect();
        for k in &keys {
            proptest::prop_assert_eq!(at(&keys, k.time as f64), k.value.x as f64);
        }
        let mid = u * 160.0 * (keys.len() - 1) as f64;
        proptest::prop_assert!(at(&keys, mid).is_finite());
    }
}
