//! Where the last frame drew the things a mouse can point at.
//!
//! `ui::draw` returns the map of the frame it drew: each pane records its clickable things'
//! cells from the layout it drew them with. The run loop hands the map to the app
//! (`App::drawn`), and the event handling reads it to turn a click or a wheel turn into the
//! actions the keys would take (`App::actions_for_mouse`). The map says only *what* is where,
//! never what a click does.

use ratatui::layout::{Position, Rect};

use crate::action::Action;

/// A pane the mouse wheel scrolls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scrollable {
    /// The weight matrix: its rows.
    Matrix,
    /// The lookups: one token's lookup at a time, as the arrows step.
    Lookups,
    /// "What the layer returned": its pages.
    Explanation,
    /// The help overlay.
    Help,
    /// The snippet overlay (`y`).
    Snippet,
}

/// What the mouse points at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A token, by its index in the sentence (in the token strip or the sentence).
    Token(usize),
    /// A row of the weight matrix, by its id.
    Row(usize),
    /// An entry of the help bar: the action its key takes.
    Entry(Action),
    /// One of the lesson's answers, by its number.
    Answer(usize),
    /// A pane the wheel scrolls (clicks on it do nothing).
    Pane(Scrollable),
    /// Something drawn over the panes (the help overlay): what lies under it is out of reach.
    Cover,
}

/// The clickable places of one frame, in the order drawn: a later one lies over an earlier.
#[derive(Clone, Debug, Default)]
pub struct HitMap {
    spots: Vec<(Rect, Target)>,
}

impl HitMap {
    /// Forgets the last frame's places.
    pub fn clear(&mut self) {
        self.spots.clear();
    }

    /// Records that `target` was drawn on `area` (nothing for an empty area).
    pub fn record(&mut self, area: Rect, target: Target) {
        if !area.is_empty() {
            self.spots.push((area, target));
        }
    }

    /// The topmost thing a click at a cell reaches: not a pane (a click on a pane's empty
    /// space does nothing), and nothing under a cover.
    #[must_use]
    pub fn click_at(&self, column: u16, row: u16) -> Option<&Target> {
        self.under(column, row)
            .find(|target| !matches!(target, Target::Pane(_)))
            .filter(|target| **target != Target::Cover)
    }

    /// The pane the wheel scrolls at a cell: the topmost pane there, unless a cover is above
    /// it.
    #[must_use]
    pub fn pane_at(&self, column: u16, row: u16) -> Option<Scrollable> {
        self.under(column, row)
            .find_map(|target| match target {
                Target::Pane(pane) => Some(Some(*pane)),
                Target::Cover => Some(None),
                _ => None,
            })
            .flatten()
    }

    /// What lies at a cell, topmost first.
    fn under(&self, column: u16, row: u16) -> impl Iterator<Item = &Target> {
        let position = Position::new(column, row);
        self.spots
            .iter()
            .rev()
            .filter(move |(area, _)| area.contains(position))
            .map(|(_, target)| target)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_topmost_place_wins_and_a_cover_hides_what_lies_under_it() {
        let mut map = HitMap::default();
        map.record(Rect::new(0, 0, 10, 10), Target::Pane(Scrollable::Matrix));
        map.record(Rect::new(1, 2, 8, 1), Target::Row(4));
        map.record(Rect::new(0, 0, 0, 5), Target::Row(9));
        assert_eq!(map.click_at(3, 2), Some(&Target::Row(4)));
        assert_eq!(map.click_at(3, 3), None, "a pane's empty space");
        assert_eq!(map.pane_at(3, 2), Some(Scrollable::Matrix));
        assert_eq!(map.click_at(0, 0), None, "an empty area records nothing");
        map.record(Rect::new(2, 0, 4, 4), Target::Cover);
        assert_eq!(map.click_at(3, 2), None);
        assert_eq!(map.pane_at(3, 2), None);
        assert_eq!(
            map.click_at(7, 2),
            Some(&Target::Row(4)),
            "beside the cover"
        );
        map.clear();
        assert_eq!(map.pane_at(7, 2), None);
    }
}
