//! Where things are on screen. Playwright's YAML carries no geometry unless
//! asked: `browser_snapshot {"boxes": true}` adds `[box=x,y,w,h]` (viewport
//! CSS pixels) to every element for ~20 ms, while each `browser_evaluate`
//! costs the server's 500 ms settle time. So the viewport is measured by
//! script only on the first look and on scrolls (where the scrolling script
//! returns it for free); between those, the scroll offset is followed from
//! how far the page's root box moved.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use crate::page::Snapshot;

/// Returns `[innerWidth, innerHeight, scrollX, scrollY]` under a key the
/// profile recognises in any result.
pub const MEASURE_JS: &str = "() => ({ viewport: [innerWidth, innerHeight, scrollX, scrollY] })";

/// An element's box in viewport CSS pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BBox {
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
}

impl BBox {
    pub fn center(&self) -> (i64, i64) {
        (self.x + self.width / 2, self.y + self.height / 2)
    }

    pub fn contains(&self, (x, y): (i64, i64)) -> bool {
        x >= self.x && x < self.x + self.width && y >= self.y && y < self.y + self.height
    }

    pub fn is_empty(&self) -> bool {
        self.width <= 0 || self.height <= 0
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Viewport {
    pub width: i64,
    pub height: i64,
    pub scroll_x: i64,
    pub scroll_y: i64,
}

/// How much of an element the viewport shows; the order is the ranking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Visibility {
    Full,
    Partial,
    Offscreen,
}

/// Where `bbox` is relative to a `width`×`height` viewport; without a box or
/// a viewport nothing is known, and the element counts as shown.
pub fn visibility(bbox: Option<&BBox>, viewport: Option<&Viewport>) -> Visibility {
    let (Some(b), Some(v)) = (bbox, viewport) else {
        return Visibility::Full;
    };
    let inside_x = b.x >= 0 && b.x + b.width <= v.width;
    let inside_y = b.y >= 0 && b.y + b.height <= v.height;
    let overlaps = b.x < v.width && b.x + b.width > 0 && b.y < v.height && b.y + b.height > 0;
    if b.is_empty() {
        // Zero-size elements sit at a point: on screen or not.
        return if b.x >= 0 && b.x <= v.width && b.y >= 0 && b.y <= v.height {
            Visibility::Full
        } else {
            Visibility::Offscreen
        };
    }
    match (inside_x && inside_y, overlaps) {
        (true, _) => Visibility::Full,
        (false, true) => Visibility::Partial,
        (false, false) => Visibility::Offscreen,
    }
}

/// Every `[ref=…] … [box=x,y,w,h]` of Playwright's YAML, by ref.
pub fn boxes(yaml: &str) -> HashMap<String, BBox> {
    let mut out = HashMap::new();
    for line in yaml.lines() {
        let (Some(reference), Some(bbox)) = (attr(line, "ref"), attr(line, "box")) else {
            continue;
        };
        let n: Vec<i64> = bbox
            .split(',')
            .filter_map(|n| n.trim().parse::<f64>().ok())
            .map(|n| n.round() as i64)
            .collect();
        if let [x, y, width, height] = n[..] {
            out.insert(
                reference.to_owned(),
                BBox {
                    x,
                    y,
                    width,
                    height,
                },
            );
        }
    }
    out
}

/// Whether Playwright marked the element with `ref` as clickable by its
/// pointer cursor: the tree's only trace of a script's click handler.
pub fn pointer_refs(yaml: &str) -> Vec<String> {
    yaml.lines()
        .filter(|l| l.contains("[cursor=pointer]"))
        .filter_map(|l| attr(l, "ref").map(str::to_owned))
        .collect()
}

/// The value of `[name=…]` on a line, outside the quoted accessible name.
fn attr<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    // Attributes follow the name, so search after the last closing quote
    // of the key; names may themselves contain "[ref=".
    let key_end = line.rfind("\" [").map_or(0, |i| i + 1);
    let rest = &line[key_end..];
    let open = format!("[{name}=");
    let start = rest.find(&open)? + open.len();
    let end = rest[start..].find(']')?;
    Some(&rest[start..start + end])
}

/// The viewport a script result reported, if it is [`MEASURE_JS`]'s shape.
pub fn measured(result: Option<&str>) -> Option<Viewport> {
    let value: Value = serde_json::from_str(result?.trim()).ok()?;
    let n: Vec<i64> = value
        .get("viewport")?
        .as_array()?
        .iter()
        .filter_map(Value::as_f64)
        .map(|n| n.round() as i64)
        .collect();
    match n[..] {
        [width, height, scroll_x, scroll_y] => Some(Viewport {
            width,
            height,
            scroll_x,
            scroll_y,
        }),
        _ => None,
    }
}

/// The page's first box (the document's root element) and the scroll
/// offset it was seen at.
#[derive(Debug, Clone, PartialEq)]
struct Anchor {
    url: String,
    root: (i64, i64),
    scroll: (i64, i64),
}

/// Follows the viewport between measurements.
#[derive(Debug, Default)]
pub struct Tracker {
    viewport: Option<Viewport>,
    anchor: Option<Anchor>,
}

impl Tracker {
    pub fn known(&self) -> bool {
        self.viewport.is_some()
    }

    /// The viewport for `snapshot`, given a fresh measurement if there is one.
    pub fn update(
        &mut self,
        snapshot: &Snapshot,
        boxes: &HashMap<String, BBox>,
        measured: Option<Viewport>,
    ) -> Option<Viewport> {
        let root = root_box(snapshot, boxes).map(|b| (b.x, b.y));
        let mut viewport = measured.or(self.viewport)?;
        if measured.is_none() {
            viewport.scroll_x = 0;
            viewport.scroll_y = 0;
            if let (Some(anchor), Some(root)) = (&self.anchor, root)
                && anchor.url == snapshot.url
            {
                viewport.scroll_x = (anchor.scroll.0 + anchor.root.0 - root.0).max(0);
                viewport.scroll_y = (anchor.scroll.1 + anchor.root.1 - root.1).max(0);
            }
        }
        self.viewport = Some(viewport);
        self.anchor = root.map(|root| Anchor {
            url: snapshot.url.clone(),
            root,
            scroll: (viewport.scroll_x, viewport.scroll_y),
        });
        Some(viewport)
    }
}

fn root_box<'a>(snapshot: &Snapshot, boxes: &'a HashMap<String, BBox>) -> Option<&'a BBox> {
    snapshot
        .elements
        .iter()
        .find_map(|e| e.reference.as_ref().and_then(|r| boxes.get(r)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    const YAML: &str = "- generic [active] [ref=e1] [box=8,21,1264,197]:\n  \
        - button \"Odd [ref=e9] [box=1,1,1,1]\" [ref=e11] [cursor=pointer] [box=8,198.4,135,21]\n  \
        - option \"Basic\" [box=0,0,0,0]\n";

    #[test]
    fn boxes_by_ref_ignore_names() {
        let b = boxes(YAML);
        assert_eq!(b.len(), 2);
        assert_eq!(
            b["e11"],
            BBox {
                x: 8,
                y: 198,
                width: 135,
                height: 21
            }
        );
        assert!(!b.contains_key("e9"));
        assert_eq!(pointer_refs(YAML), vec!["e11".to_owned()]);
    }

    #[test]
    fn visibility_table() {
        let v = Viewport {
            width: 1280,
            height: 720,
            ..Viewport::default()
        };
        let b = |x, y, width, height| BBox {
            x,
            y,
            width,
            height,
        };
        for (bbox, want) in [
            (b(8, 21, 100, 20), Visibility::Full),
            (b(8, 710, 100, 20), Visibility::Partial),
            (b(-50, 10, 100, 20), Visibility::Partial),
            (b(8, 800, 100, 20), Visibility::Offscreen),
            (b(8, -2524, 100, 20), Visibility::Offscreen),
            (b(-600, 10, 100, 20), Visibility::Offscreen),
            (b(130, 193, 0, 0), Visibility::Full),
        ] {
            assert_eq!(visibility(Some(&bbox), Some(&v)), want, "{bbox:?}");
        }
        assert_eq!(visibility(None, Some(&v)), Visibility::Full);
    }

    #[test]
    fn measured_reads_the_script_result_only() {
        let v = measured(Some("{\n  \"viewport\": [1280, 720, 0, 214.5]\n}")).unwrap();
        assert_eq!((v.width, v.height, v.scroll_y), (1280, 720, 215));
        assert_eq!(measured(Some("[1, 2]")), None);
        assert_eq!(measured(None), None);
    }

    #[test]
    fn scroll_follows_the_root_box_on_the_same_page() {
        let page = |url: &str, y: i64| {
            let yaml = format!("- generic [ref=e1] [box=8,{y},1264,3236]:");
            let snapshot = Snapshot {
                url: url.into(),
                content: yaml.clone(),
                elements: crate::browser::parse_tree(&yaml),
                ..Snapshot::default()
            };
            let b = boxes(&yaml);
            (snapshot, b)
        };
        let mut t = Tracker::default();
        let (s, b) = page("http://a/", 21);
        assert_eq!(t.update(&s, &b, None), None, "nothing measured yet");
        let first = Viewport {
            width: 1280,
            height: 720,
            scroll_x: 0,
            scroll_y: 0,
        };
        assert_eq!(t.update(&s, &b, Some(first)).unwrap().scroll_y, 0);
        let (s, b) = page("http://a/", -2524);
        assert_eq!(t.update(&s, &b, None).unwrap().scroll_y, 2545);
        let (s, b) = page("http://a/other", 21);
        assert_eq!(
            t.update(&s, &b, None).unwrap().scroll_y,
            0,
            "a new page starts at the top"
        );
    }
}
