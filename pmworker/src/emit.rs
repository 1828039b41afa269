//! Where events go: stdout (one flushed line each, so a crash loses nothing already
//! said) or a vector (the farm's in-process mode). Breadcrumbs also update the
//! process-wide "last breadcrumb" that the panic hook reports.

use crate::events::{Breadcrumb, Event};
use std::io::Write;
use std::sync::Mutex;

static LAST_BREADCRUMB: Mutex<Option<Breadcrumb>> = Mutex::new(None);

/// Last breadcrumb emitted by this process (for the panic hook).
pub fn last_breadcrumb() -> Option<Breadcrumb> {
    LAST_BREADCRUMB.try_lock().ok().and_then(|g| g.clone())
}

/// A destination for events.
pub trait Sink {
    /// Delivers one event.
    fn emit(&mut self, event: Event);

    /// Delivers one breadcrumb event; by reference, so a sink that only writes it out
    /// (stdout) needs no copy of its strings.
    fn emit_breadcrumb(&mut self, crumb: &Breadcrumb) {
        self.emit(Event::Breadcrumb(crumb.clone()));
    }

    /// Records and delivers a breadcrumb, then gives the fault hook its chance to fire.
    fn breadcrumb(&mut self, crumb: Breadcrumb) {
        self.breadcrumb_ref(&crumb);
    }

    /// [`Sink::breadcrumb`] by reference: a caller with one breadcrumb per Scene object
    /// refills one value instead of allocating four strings per object, and the last
    /// breadcrumb's copy reuses its buffers (issue #43).
    /// With a breadcrumb slot (the farm gives one), every breadcrumb goes to the slot and
    /// only the coarse ones (no chunk path, no class) also go out as events: a Scene
    /// object breadcrumb per object would otherwise be most of the worker's output.
    fn breadcrumb_ref(&mut self, crumb: &Breadcrumb) {
        // `tier:stream`, then `:chunk path` for object-level breadcrumbs, so a fault can be
        // aimed inside a Scene object (`segfault@t2:Scene:Scene/`). Only built when a fault
        // is armed: one per Scene object otherwise (issue #43).
        let key = crate::fault::armed().then(|| match &crumb.chunk_path {
            Some(p) => format!("{}:{}:{p}", crumb.tier, crumb.stream),
            None => format!("{}:{}", crumb.tier, crumb.stream),
        });
        let fine = crumb.chunk_path.is_some() || crumb.class.is_some();
        match crate::slot::slot() {
            Some(slot) => {
                slot.write(crumb);
                if !fine {
                    self.emit_breadcrumb(crumb);
                }
            }
            None => self.emit_breadcrumb(crumb),
        }
        // Recorded before the fault hook fires, so its panic reports this breadcrumb.
        if let Ok(mut g) = LAST_BREADCRUMB.lock() {
            match &mut *g {
                Some(last) => copy_into(last, crumb),
                None => *g = Some(crumb.clone()),
            }
        }
        if let Some(key) = key {
            crate::fault::at_breadcrumb(&key);
        }
    }
}

/// `to = from.clone()`, reusing `to`'s string buffers.
fn copy_into(to: &mut Breadcrumb, from: &Breadcrumb) {
    fn text(to: &mut Option<String>, from: &Option<String>) {
        match (to.as_mut(), from) {
            (Some(t), Some(f)) => t.clone_from(f),
            _ => to.clone_from(from),
        }
    }
    to.tier.clone_from(&from.tier);
    to.stream.clone_from(&from.stream);
    text(&mut to.chunk_path, &from.chunk_path);
    text(&mut to.class, &from.class);
}

/// Writes each event as one line to stdout and flushes it.
#[derive(Default)]
pub struct StdoutSink;

impl Sink for StdoutSink {
    fn emit(&mut self, event: Event) {
        write_line(&event);
    }

    fn emit_breadcrumb(&mut self, crumb: &Breadcrumb) {
        write_line(&BreadcrumbLine::Breadcrumb(crumb));
    }
}

/// A breadcrumb serialized by reference, exactly as [`Event::Breadcrumb`] writes it.
#[derive(serde::Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
enum BreadcrumbLine<'a> {
    Breadcrumb(&'a Breadcrumb),
}

/// One JSON line to stdout, flushed.
fn write_line(value: &impl serde::Serialize) {
    let mut line = serde_json::to_vec(value).expect("events always serialize");
    line.push(b'\n');
    let mut out = std::io::stdout().lock();
    // A closed stdout means the coordinator is gone or the fault hook closed it;
    // there is nobody left to tell, so write errors are ignored.
    let _ = out.write_all(&line);
    let _ = out.flush();
}

/// Collects events in memory.
#[derive(Default)]
pub struct VecSink {
    /// Events in emission order.
    pub events: Vec<Event>,
}

impl Sink for VecSink {
    fn emit(&mut self, event: Event) {
        self.events.push(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copied_breadcrumb_equals_its_source_whatever_it_replaced() {
        let fine = Breadcrumb {
            tier: "t2".into(),
            stream: "Scene".into(),
            chunk_path: Some("Scene/0x2025/[3]0x0003".into()),
            class: Some("Texmaps".into()),
        };
        let coarse = Breadcrumb { tier: "t1".into(), stream: "Config".into(), ..Default::default() };
        for (was, now) in [(&fine, &coarse), (&coarse, &fine), (&fine, &fine)] {
            let mut to = was.clone();
            copy_into(&mut to, now);
            assert_eq!(&to, now);
        }
    }

    #[test]
    fn a_breadcrumb_by_reference_is_the_same_line_as_the_event() {
        let crumb = Breadcrumb {
            tier: "t2".into(),
            stream: "Scene".into(),
            chunk_path: Some("Scene/0x2025/[3]0x0003".into()),
            class: Some("Te\"x\u{5}maps".into()),
        };
        let by_ref = serde_json::to_string(&BreadcrumbLine::Breadcrumb(&crumb)).unwrap();
        assert_eq!(by_ref, Event::Breadcrumb(crumb).to_line());
    }
}
