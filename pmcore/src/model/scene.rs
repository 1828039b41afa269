//! The typed Scene: the version root container holding one chunk per object. Each
//! object resolves through ClassDirectory3 (0x2032/0x2033 = OSM/WSM Derived) and the
//! [`registry`](super::registry); its chunks become [`Part`]s in stored order — typed
//! where its class level documents them, raw otherwise. An object whose data surprises
//! its decoder keeps its original bytes (degraded), never failing the file.

use super::appdata::{self, AppData};
use super::directory::Directories;
use super::object_parts;
use super::part::{child_spans, typed_leaf, Ctx, Part, Span, Surprise};
use super::references::{self, References};
use super::registry::{self, Resolution, TypedClass};
use super::scene_index::{self, ResolvedClass};
use super::value::{Kind, Value};
use super::writer::{BuildError, Writer};
use crate::chunk::{Chunk, HeaderWidth};
use std::collections::HashMap;

/// Chunk ids the object levels type.
pub(crate) mod ids {
    /// ReferenceMaker: one byte (0x2E in every documented file).
    pub(crate) const REFMAKER_204B: u16 = 0x204B;
    /// NodeImpl version (`u32`).
    pub(crate) const NODE_VERSION: u16 = 0x09ce;
    /// NodeImpl parent (`u32` storage index, `u32` flags).
    pub(crate) const NODE_PARENT: u16 = 0x0960;
    /// NodeImpl name (UTF-16).
    pub(crate) const NODE_NAME: u16 = 0x0962;
    /// TrackViewNode child display name (UTF-16).
    pub(crate) const TVN_NAME: u16 = 0x0110;
    /// TrackViewNode child ClassId (2×`u32`).
    pub(crate) const TVN_CLASS: u16 = 0x0120;
    /// TrackViewNode child "is not another node" (`s32`).
    pub(crate) const TVN_FLAG: u16 = 0x0130;
    /// TrackViewNode empty marker.
    pub(crate) const TVN_EMPTY_0140: u16 = 0x0140;
    /// TrackViewNode empty marker.
    pub(crate) const TVN_EMPTY_0150: u16 = 0x0150;
}

/// A class as the Scene sees it: directory entry plus how the model treats it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassInfo {
    /// Scene chunk id of its objects.
    pub chunk_id: u16,
    /// Directory resolution; `None` when the id is outside ClassDirectory3.
    pub resolved: Option<ResolvedClass>,
    /// Exact / superclass / generic.
    pub resolution: Resolution,
}

impl ClassInfo {
    /// Display name (or `<class #N missing>`).
    pub(crate) fn name(&self) -> String {
        match &self.resolved {
            Some(r) => r.name.clone(),
            None => format!("<class #{} missing>", self.chunk_id),
        }
    }
}

/// What the model did with one object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ObjectState {
    /// Decoded through its class level(s).
    Typed,
    /// Unknown superclass or unresolvable id: only the Animatable / ReferenceMaker base
    /// chunks are typed, everything else stays raw in place.
    Generic,
    /// Kept raw after a decoder surprise.
    Degraded(Surprise),
}

/// How an object's bytes are rebuilt.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ObjectBody {
    /// The whole object chunk copied verbatim.
    Raw(Span),
    /// A 0-byte leaf (container bit clear), header regenerated.
    EmptyLeaf,
    /// A container whose children are `SceneModel::parts[start..end]`, in stored order
    /// (one arena for the whole Scene: no allocation per object).
    Parts {
        /// First part.
        start: u32,
        /// One past the last part.
        end: u32,
    },
}

/// One Scene object.
#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    /// Chunk id (ClassDirectory3 index or 0x2032/0x2033).
    pub id: u16,
    width: HeaderWidth,
    /// Index into [`SceneModel::classes`].
    pub class: usize,
    /// Typed / generic / degraded.
    pub(crate) state: ObjectState,
    /// Content.
    pub(crate) body: ObjectBody,
    /// Bytes of the object chunk (header included).
    pub bytes: u64,
    /// Of which regenerated from typed state (the rest is copied raw).
    pub typed_bytes: u64,
}

/// Per-class object counts for the inventory.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ClassTally {
    /// ClassId pair.
    pub class_id: [u32; 2],
    /// SuperClassId.
    pub superclass: u32,
    /// Display name.
    pub name: String,
    /// DLL file name.
    pub dll: String,
    /// Exact / superclass / generic.
    pub resolution: &'static str,
    /// Objects of this class.
    pub count: u64,
    /// Decoded by the typed model (exact class or typed superclass).
    pub typed: u64,
    /// Generic objects (unknown superclass): base chunks typed, own chunks raw.
    pub generic: u64,
    /// Kept raw after a decoder surprise.
    pub degraded: u64,
    /// Scene bytes of this class's objects.
    pub bytes: u64,
    /// Of which regenerated from decoded fields; the rest (`bytes - typed_bytes`) is kept
    /// verbatim, including byte arrays inside otherwise typed objects.
    pub typed_bytes: u64,
}

#[cfg(test)]
/// Counts of typed-owned chunks, for the coverage floor.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TypedCounts {
    /// AppData containers (including empty ones, which build drops).
    pub appdata: u64,
    /// 0x2034 reference chunks.
    pub refs_flat: u64,
    /// 0x2035 reference chunks.
    pub refs_map: u64,
    /// NodeImpl 0x09ce.
    pub node_version: u64,
    /// NodeImpl 0x0960.
    pub node_parent: u64,
    /// NodeImpl 0x0962.
    pub node_name: u64,
}

#[cfg(test)]
/// One TrackViewNode child as stored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TrackViewChild {
    /// Display name (0x0110).
    pub name: String,
    /// ClassId (0x0120), when stored.
    pub class_id: Option<[u32; 2]>,
    /// "Is not another node" (0x0130), when stored.
    pub flag: Option<i32>,
}

#[cfg(test)]
/// Node parent/children links, from NodeImpl parent chunks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct NodeTree {
    /// Parent storage index per storage index (nodes only).
    pub parent: HashMap<usize, usize>,
    /// Children per storage index, in storage order.
    pub children: HashMap<usize, Vec<usize>>,
}

/// The decoded Scene stream.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneModel {
    root: Option<(u16, HeaderWidth)>,
    /// Objects in storage order (storage index = position).
    pub objects: Vec<Object>,
    /// Distinct classes seen, in first-seen order.
    pub(crate) classes: Vec<ClassInfo>,
    /// Parts of every typed object, object after object.
    parts: Vec<Part>,
    tail: Vec<Span>,
    /// Non-fatal observations (e.g. the scene object is not last).
    pub notes: Vec<String>,
}

/// Expected SceneImpl reference slot count for a format version, where measured.
pub(crate) fn scene_impl_slots(version: u16) -> Option<usize> {
    match version {
        0x2004 => Some(11),
        0x200B..=0x2012 => Some(12),
        0x2020..=0x2028 => Some(13),
        _ => None,
    }
}

/// SceneImpl slot count written by a saving release (major number), where measured: Max
/// keeps its own SceneImpl layout when it saves as an older version. Max 2013 (release 15)
/// writes 13 slots, the 13th empty (`-1`) in most files: natively (every `0x2017` file of
/// wild, e.g. `maruzu__licuadora.max`, `tae8838__stage.max`) and when it saves as Max 2010
/// (`wild/erbolvov1989__1.max`: root `0x2012`, saved by 15.00 as 12.00, 13 slots). Max 2012
/// saving as 2010 writes the 2010 count (`public/nekidaem__08-…alysson_claret.max`, 14.00
/// as 12.00: 12 slots), so release 14 is not listed.
pub(crate) fn scene_impl_slots_saved_by(release_major: u32) -> Option<usize> {
    match release_major {
        15 => Some(13),
        _ => None,
    }
}

/// What the SceneImpl slot check needs: the root version and the saving release.
#[derive(Clone, Copy, Debug)]
struct SlotRule {
    version: u16,
    saved_by: Option<u32>,
}

impl SlotRule {
    /// The saving release's count where measured, else the version's.
    fn expected(self) -> Option<usize> {
        self.saved_by.and_then(scene_impl_slots_saved_by).or_else(|| scene_impl_slots(self.version))
    }
}

impl SceneModel {
    /// Decodes the Scene tree; `on_object(path, class)` runs before each object decode.
    /// `saved_by` is the saving release's major number (document summary), when known.
    pub fn decode(
        tree: &[Chunk<'_>],
        stream_len: u64,
        dirs: &Directories,
        saved_by: Option<u32>,
        ctx: &mut Ctx<'_>,
        mut on_object: impl FnMut(&str, &str),
    ) -> SceneModel {
        let mut model = SceneModel {
            root: None,
            objects: Vec::new(),
            classes: Vec::new(),
            parts: Vec::new(),
            tail: Vec::new(),
            notes: Vec::new(),
        };
        let mut spans = child_spans(tree, stream_len);
        let Some((_, root, root_span)) = spans.next() else { return model };
        if !root.is_container() {
            model.tail.push(root_span);
            model.notes.push("Scene root is a leaf: kept raw".into());
        } else {
            model.root = Some((root.id, root.width));
            ctx.claims.header(root_span, root.width);
            ctx.steps.push((0, root.id));
            model.decode_objects(root, root_span, dirs, saved_by, ctx, &mut on_object);
            ctx.steps.pop();
        }
        model.tail.extend(spans.map(|(_, _, s)| s));
        if model.tail.len() > usize::from(model.root.is_none()) {
            model.notes.push(format!("Scene holds {} top-level chunks after the root: kept raw", model.tail.len()));
        }
        model
    }

    fn decode_objects(
        &mut self,
        root: &Chunk<'_>,
        root_span: Span,
        dirs: &Directories,
        saved_by: Option<u32>,
        ctx: &mut Ctx<'_>,
        on_object: &mut impl FnMut(&str, &str),
    ) {
        let version = root.id;
        let rule = SlotRule { version, saved_by };
        // Class slot per chunk id: directory ids index a vector (no hashing on the hot
        // path); the derived-object ids and ids outside the directory go through a map.
        let mut class_of_dir: Vec<u32> = vec![u32::MAX; dirs.classes.len()];
        let mut class_of_other: HashMap<u16, usize> = HashMap::new();
        let mut path = String::with_capacity(64);
        self.objects.reserve(root.children().len());
        // One part per child of a container object: reserved exactly, so the arena is
        // never regrown (each doubling copied it into fresh pages).
        self.parts.reserve_exact(root.children().iter().map(|c| c.children().len()).sum());
        for (i, c, span) in child_spans(root.children(), root_span.end) {
            let known = match class_of_dir.get(usize::from(c.id)) {
                Some(&slot) if slot != u32::MAX => Some(slot as usize),
                Some(_) => None,
                None => class_of_other.get(&c.id).copied(),
            };
            let class = match known {
                Some(class) => class,
                None => {
                    let resolved = scene_index::resolve(c.id, dirs);
                    let resolution =
                        resolved.as_ref().map_or(Resolution::Generic, |r| registry::resolve(r.class_id, r.superclass));
                    self.classes.push(ClassInfo { chunk_id: c.id, resolved, resolution });
                    let class = self.classes.len() - 1;
                    match class_of_dir.get_mut(usize::from(c.id)) {
                        Some(slot) => *slot = class as u32,
                        None => {
                            class_of_other.insert(c.id, class);
                        }
                    }
                    class
                }
            };
            {
                // `Scene/0x2012/[17]0x0001`, written without the formatting machinery:
                // this runs once per object on the hot path.
                path.clear();
                path.push_str(ctx.stream);
                path.push_str("/0x");
                push_hex4(&mut path, version);
                path.push_str("/[");
                push_decimal(&mut path, i);
                path.push_str("]0x");
                push_hex4(&mut path, c.id);
                let name = self.classes[class].resolved.as_ref().map_or("<class missing>", |r| r.name.as_str());
                on_object(&path, name);
            }
            let info = &self.classes[class];
            let parts = &mut self.parts;
            let before = ctx.claims.bytes();
            let mut object = ctx.at(i, c.id, |ctx| decode_object(c, span, class, info, rule, parts, ctx));
            object.bytes = span.len();
            object.typed_bytes = ctx.claims.bytes() - before;
            self.objects.push(object);
        }
        match self.objects.last().map(|o| self.classes[o.class].resolution) {
            Some(Resolution::Exact(TypedClass::SceneImpl)) => {}
            _ => self.notes.push("the last Scene object is not the SceneImpl".into()),
        }
    }

    /// Parts of the object at `storage_index` (empty unless its chunks were decoded).
    pub(crate) fn parts(&self, storage_index: usize) -> &[Part] {
        match self.objects.get(storage_index).map(|o| &o.body) {
            Some(ObjectBody::Parts { start, end }) => &self.parts[*start as usize..*end as usize],
            _ => &[],
        }
    }

    fn parts_mut(&mut self, storage_index: usize) -> &mut [Part] {
        match self.objects.get(storage_index).map(|o| &o.body) {
            Some(&ObjectBody::Parts { start, end }) => &mut self.parts[start as usize..end as usize],
            _ => &mut [],
        }
    }

    #[cfg(test)]
    /// The first reference chunk of an object.
    pub(crate) fn references(&self, storage_index: usize) -> Option<&References> {
        self.parts(storage_index).iter().find_map(|p| match p {
            Part::References(r) => Some(r),
            _ => None,
        })
    }

    /// The first AppData of an object.
    pub fn appdata(&self, storage_index: usize) -> Option<&AppData> {
        self.parts(storage_index).iter().find_map(|p| match p {
            Part::AppData(a) => Some(a),
            _ => None,
        })
    }

    /// The first AppData of an object, to edit.
    pub fn appdata_mut(&mut self, storage_index: usize) -> Option<&mut AppData> {
        self.parts_mut(storage_index).iter_mut().find_map(|p| match p {
            Part::AppData(a) => Some(a),
            _ => None,
        })
    }

    fn value(&self, storage_index: usize, id: u16) -> Option<&Value> {
        super::part::leaf(self.parts(storage_index), id).map(|l| &l.value)
    }

    /// Class of the object at `storage_index`.
    pub fn class_of(&self, storage_index: usize) -> Option<&ClassInfo> {
        self.objects.get(storage_index).map(|o| &self.classes[o.class])
    }

    fn is(&self, storage_index: usize, class: TypedClass) -> bool {
        self.class_of(storage_index).is_some_and(|c| c.resolution == Resolution::Exact(class))
    }

    /// Node name (0x0962) of a NodeImpl; "Root Node" for the RootNode.
    pub fn node_name(&self, storage_index: usize) -> Option<String> {
        if self.is(storage_index, TypedClass::RootNode) {
            return Some("Root Node".into());
        }
        self.value(storage_index, ids::NODE_NAME)?.text()
    }

    /// Renames a NodeImpl; false when it is not a typed node with a name chunk.
    pub fn set_node_name(&mut self, storage_index: usize, name: &str) -> bool {
        match super::part::leaf_mut(self.parts_mut(storage_index), ids::NODE_NAME) {
            Some(l) => {
                l.value = Value::utf16(name);
                true
            }
            None => false,
        }
    }

    #[cfg(test)]
    /// Parent storage index (0x0960) of a NodeImpl.
    pub(crate) fn node_parent(&self, storage_index: usize) -> Option<usize> {
        match self.value(storage_index, ids::NODE_PARENT)? {
            Value::U32x2([parent, _flags]) => usize::try_from(*parent).ok().filter(|&p| p < self.objects.len()),
            _ => None,
        }
    }

    #[cfg(test)]
    /// Node version (0x09ce) of a NodeImpl.
    pub(crate) fn node_version(&self, storage_index: usize) -> Option<u32> {
        match self.value(storage_index, ids::NODE_VERSION)? {
            Value::U32(v) => Some(*v),
            _ => None,
        }
    }

    /// Storage index of the node named `name`, compared case-insensitively as Max does.
    pub fn node_by_name(&self, name: &str) -> Option<usize> {
        let wanted = name.to_lowercase();
        (0..self.objects.len()).find(|&i| {
            (self.is(i, TypedClass::NodeImpl) || self.is(i, TypedClass::RootNode))
                && self.node_name(i).is_some_and(|n| n.to_lowercase() == wanted)
        })
    }

    #[cfg(test)]
    /// Parent/children links of every NodeImpl.
    pub(crate) fn node_tree(&self) -> NodeTree {
        let mut tree = NodeTree::default();
        for i in (0..self.objects.len()).filter(|&i| self.is(i, TypedClass::NodeImpl)) {
            if let Some(p) = self.node_parent(i) {
                tree.parent.insert(i, p);
                tree.children.entry(p).or_default().push(i);
            }
        }
        tree
    }

    #[cfg(test)]
    /// Controllers of a PRS (position, rotation, scale = slots 0/1/2) or LookAt
    /// (target node, position, roll, scale = slots 0/1/2/3) controller, by slot.
    pub(crate) fn controller_slots(&self, storage_index: usize) -> Option<Vec<(&'static str, Option<usize>)>> {
        let names: &[&'static str] = if self.is(storage_index, TypedClass::Prs) {
            &["position", "rotation", "scale"]
        } else if self.is(storage_index, TypedClass::LookAt) {
            &["target", "position", "roll", "scale"]
        } else {
            return None;
        };
        let refs = self.references(storage_index);
        Some(names.iter().enumerate().map(|(slot, n)| (*n, refs.and_then(|r| r.target(slot)))).collect())
    }

    #[cfg(test)]
    /// The ParamBlock2 at `storage_index`, read from its typed records (`None` unless the
    /// object is a typed ParamBlock2).
    pub(crate) fn param_block2(&self, storage_index: usize) -> Option<super::paramblock::ParamBlock2> {
        self.is(storage_index, TypedClass::ParamBlock2)
            .then(|| object_parts::param_block2_of(self.parts(storage_index)))
    }

    #[cfg(test)]
    /// Children of a TrackViewNode: per reference slot, the stored (0x0110 display name,
    /// 0x0120 ClassId, 0x0130 "is not another node") triple, in stored order.
    pub(crate) fn track_view_children(&self, storage_index: usize) -> Option<Vec<TrackViewChild>> {
        if !self.is(storage_index, TypedClass::TrackViewNode) {
            return None;
        }
        let mut out: Vec<TrackViewChild> = Vec::new();
        for p in self.parts(storage_index) {
            let Part::Leaf(l) = p else { continue };
            match (l.id, &l.value) {
                (ids::TVN_NAME, v) => {
                    out.push(TrackViewChild { name: v.text().unwrap_or_default(), ..Default::default() })
                }
                // A ClassId or flag before any name belongs to no child: skipped here,
                // still rebuilt in place.
                (ids::TVN_CLASS, Value::U32x2(c)) => {
                    if let Some(last) = out.last_mut() {
                        last.class_id = Some(*c);
                    }
                }
                (ids::TVN_FLAG, Value::I32(f)) => {
                    if let Some(last) = out.last_mut() {
                        last.flag = Some(*f);
                    }
                }
                _ => {}
            }
        }
        Some(out)
    }

    /// Inventory: every class seen, with counts.
    pub(crate) fn inventory(&self) -> Vec<ClassTally> {
        let mut tallies: Vec<ClassTally> = self
            .classes
            .iter()
            .map(|c| ClassTally {
                class_id: c.resolved.as_ref().map_or([0, 0], |r| r.class_id),
                superclass: c.resolved.as_ref().map_or(0, |r| r.superclass),
                name: c.name(),
                dll: c.resolved.as_ref().map_or_else(String::new, |r| r.dll.clone()),
                resolution: c.resolution.name(),
                count: 0,
                typed: 0,
                generic: 0,
                degraded: 0,
                bytes: 0,
                typed_bytes: 0,
            })
            .collect();
        for o in &self.objects {
            let t = &mut tallies[o.class];
            t.count += 1;
            t.bytes += o.bytes;
            t.typed_bytes += o.typed_bytes;
            match o.state {
                ObjectState::Typed => t.typed += 1,
                ObjectState::Generic => t.generic += 1,
                ObjectState::Degraded(_) => t.degraded += 1,
            }
        }
        tallies
    }

    #[cfg(test)]
    /// Counts of typed-owned chunks of the kinds the coverage floor checks.
    pub(crate) fn typed_counts(&self) -> TypedCounts {
        let mut n = TypedCounts::default();
        {
            for p in &self.parts {
                match p {
                    Part::AppData(_) => n.appdata += 1,
                    Part::References(References::Flat { .. }) => n.refs_flat += 1,
                    Part::References(References::Map { .. }) => n.refs_map += 1,
                    Part::Leaf(l) if l.id == ids::NODE_VERSION => n.node_version += 1,
                    Part::Leaf(l) if l.id == ids::NODE_PARENT => n.node_parent += 1,
                    Part::Leaf(l) if l.id == ids::NODE_NAME => n.node_name += 1,
                    _ => {}
                }
            }
        }
        n
    }

    /// Degraded objects with their class.
    pub fn degraded(&self) -> impl Iterator<Item = (&ClassInfo, &Surprise)> {
        self.objects.iter().filter_map(|o| match &o.state {
            ObjectState::Degraded(s) => Some((&self.classes[o.class], s)),
            _ => None,
        })
    }

    /// Writes the stream: typed parts from state, raw spans from `source`.
    pub(crate) fn build(&self, source: &[u8], w: &mut Writer<'_>) -> Result<(), BuildError> {
        if let Some((id, width)) = self.root {
            let open = w.open(id, width, true);
            for o in &self.objects {
                match &o.body {
                    ObjectBody::Raw(span) => w.raw(source, span.start, span.end)?,
                    ObjectBody::EmptyLeaf => w.leaf_with(o.id, o.width, |_| {})?,
                    ObjectBody::Parts { start, end } => {
                        let obj = w.open(o.id, o.width, true);
                        super::part::build_parts(&self.parts[*start as usize..*end as usize], source, w)?;
                        w.close(obj)?;
                    }
                }
            }
            w.close(open)?;
        }
        self.tail.iter().try_for_each(|s| w.raw(source, s.start, s.end))
    }
}

fn push_hex4(out: &mut String, v: u16) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    for shift in [12, 8, 4, 0] {
        out.push(HEX[usize::from((v >> shift) & 0xF)] as char);
    }
}

fn push_decimal(out: &mut String, mut v: usize) {
    let mut digits = [0u8; 20];
    let mut n = 0;
    loop {
        digits[n] = b'0' + (v % 10) as u8;
        n += 1;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    digits[..n].iter().rev().for_each(|d| out.push(*d as char));
}

fn decode_object(
    c: &Chunk<'_>,
    span: Span,
    class: usize,
    info: &ClassInfo,
    rule: SlotRule,
    arena: &mut Vec<Part>,
    ctx: &mut Ctx<'_>,
) -> Object {
    // A generic object (superclass unknown to the registry) still gets the Animatable and
    // ReferenceMaker overlays: every Scene object writes those base-class chunks through
    // the SDK, whatever its superclass. Its own chunks stay raw in place.
    let state = if info.resolution == Resolution::Generic { ObjectState::Generic } else { ObjectState::Typed };
    let mut object =
        Object { id: c.id, width: c.width, class, state, body: ObjectBody::Raw(span), bytes: 0, typed_bytes: 0 };
    let Some(payload) = c.payload() else {
        let mark = ctx.claims.mark();
        let start = arena.len();
        match decode_parts(c, span, info.resolution, rule, arena, ctx) {
            Ok(()) => {
                ctx.claims.header(span, c.width);
                object.body = ObjectBody::Parts { start: start as u32, end: arena.len() as u32 };
            }
            Err(s) => {
                ctx.claims.rollback(mark);
                arena.truncate(start);
                object.state = ObjectState::Degraded(s);
            }
        }
        return object;
    };
    if payload.is_empty() {
        ctx.claims.claim(span);
        object.body = ObjectBody::EmptyLeaf;
    } else {
        object.state = ObjectState::Degraded(ctx.surprise(format!("object is a {}-byte leaf", payload.len())));
    }
    object
}

fn decode_parts(
    c: &Chunk<'_>,
    span: Span,
    resolution: Resolution,
    rule: SlotRule,
    arena: &mut Vec<Part>,
    ctx: &mut Ctx<'_>,
) -> Result<(), Surprise> {
    let class = match resolution {
        Resolution::Exact(t) => Some(t),
        _ => None,
    };
    let start = arena.len();
    for (i, child, cspan) in child_spans(c.children(), span.end) {
        let part = ctx.at(i, child.id, |ctx| decode_part(child, cspan, class, ctx))?;
        arena.push(part);
    }
    if class == Some(TypedClass::SceneImpl) {
        let slots = arena[start..].iter().find_map(|p| match p {
            Part::References(r) => Some(r.slot_count()),
            _ => None,
        });
        if let (Some(expected), Some(found)) = (rule.expected(), slots) {
            if expected != found {
                let version = rule.version;
                let by = rule.saved_by.map(|r| format!(" saved by release {r}")).unwrap_or_default();
                return Err(ctx.surprise(format!(
                    "SceneImpl has {found} reference slots; files of version 0x{version:04x}{by} store {expected}"
                )));
            }
        }
    }
    Ok(())
}

fn decode_part(child: &Chunk<'_>, span: Span, class: Option<TypedClass>, ctx: &mut Ctx<'_>) -> Result<Part, Surprise> {
    let base = matches!(child.id, appdata::APPDATA | references::FLAT | references::MAP | ids::REFMAKER_204B);
    if !base {
        match class {
            Some(TypedClass::ParamBlock2) => return Ok(object_parts::param_block2(child, span, ctx)),
            Some(TypedClass::ParamBlock) => return Ok(object_parts::param_block(child, span, ctx)),
            Some(TypedClass::EditablePoly) => return Ok(object_parts::geometry(child, span, ctx, true)),
            Some(TypedClass::EditableMesh) => return Ok(object_parts::geometry(child, span, ctx, false)),
            Some(TypedClass::Keyframer) => return Ok(object_parts::keyframer(child, span, ctx)),
            _ => {}
        }
    }
    let kind = match (child.id, class) {
        (appdata::APPDATA, _) => return AppData::decode(child, span, ctx).map(Part::AppData),
        (references::FLAT | references::MAP, _) => return References::decode(child, span, ctx).map(Part::References),
        (ids::REFMAKER_204B, _) => Kind::U8,
        (ids::NODE_VERSION, Some(TypedClass::NodeImpl)) => Kind::U32,
        (ids::NODE_PARENT, Some(TypedClass::NodeImpl)) => Kind::U32x2,
        (ids::NODE_NAME, Some(TypedClass::NodeImpl)) => Kind::Utf16,
        (ids::TVN_NAME, Some(TypedClass::TrackViewNode)) => Kind::Utf16,
        (ids::TVN_CLASS, Some(TypedClass::TrackViewNode)) => Kind::U32x2,
        (ids::TVN_FLAG, Some(TypedClass::TrackViewNode)) => Kind::I32,
        (ids::TVN_EMPTY_0140 | ids::TVN_EMPTY_0150, Some(TypedClass::TrackViewNode)) => Kind::Empty,
        _ => return Ok(Part::Raw(span)),
    };
    typed_leaf(child, span, kind, ctx).map(Part::Leaf)
}

#[cfg(test)]
mod tests {
    #[test]
    fn hand_formatted_locators_match_the_formatter() {
        for (v, i) in [(0u16, 0usize), (0x2012, 17), (0xFFFF, 10_229), (0x00AB, usize::MAX)] {
            let mut s = String::new();
            super::push_hex4(&mut s, v);
            s.push('/');
            super::push_decimal(&mut s, i);
            assert_eq!(s, format!("{v:04x}/{i}"));
        }
    }
}
