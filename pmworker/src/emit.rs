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

    /// Records and delivers a breadcrumb, then gives the fault hook its chance to fire.
    /// With a breadcrumb slot (the farm gives one), every breadcrumb goes to the slot and
    /// only the coarse ones (no chunk path, no class) also go out as events: a Scene
    /// object breadcrumb per object would otherwise be most of the worker's output.
    fn breadcrumb(&mut self, crumb: Breadcrumb) {
        if let Ok(mut g) = LAST_BREADCRUMB.lock() {
            *g = Some(crumb.clone());
        }
        // `tier:stream`, then `:chunk path` for object-level breadcrumbs, so a fault can be
        // aimed inside a Scene object (`segfault@t2:Scene:Scene/`).
        let key = match &crumb.chunk_path {
            Some(p) => format!("{}:{}:{p}", crumb.tier, crumb.stream),
            None => format!("{}:{}", crumb.tier, crumb.stream),
        };
        let fine = crumb.chunk_path.is_some() || crumb.class.is_some();
        match crate::slot::slot() {
            Some(slot) => {
                slot.write(&crumb);
                if !fine {
                    self.emit(Event::Breadcrumb(crumb));
                }
            }
            None => self.emit(Event::Breadcrumb(crumb)),
        }
        crate::fault::at_breadcrumb(&key);
    }
}

/// Writes each event as one line to stdout and flushes it.
#[derive(Default)]
pub struct StdoutSink;

impl Sink for StdoutSink {
    fn emit(&mut self, event: Event) {
        let mut out = std::io::stdout().lock();
        // A closed stdout means the coordinator is gone or the fault hook closed it;
        // there is nobody left to tell, so write errors are ignored.
        let _ = writeln!(out, "{}", event.to_line());
        let _ = out.flush();
    }
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
