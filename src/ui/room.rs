//! What gives way in a short pane. A pane hands out its height piece by piece, in the order
//! its pieces matter: each piece whole or not at all ([`Room::all`]), as many of its lines as
//! are left ([`Room::some`]), as many of a list's pieces, in order, as fit whole
//! ([`Room::leading`]), or, for pieces ranked by a number, the most important that fit whole
//! ([`Room::by_priority`]). Every pane that can be short of rows decides here, so the
//! rule reads the same everywhere: what is asked first is kept first.

/// Lines of a pane's height not yet given out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Room(usize);

impl Room {
    /// A pane's `height` lines, none given out yet.
    #[must_use]
    pub fn new(height: usize) -> Self {
        Self(height)
    }

    /// The lines not yet given out.
    #[must_use]
    pub fn left(self) -> usize {
        self.0
    }

    /// Up to `wanted` lines, as many as are left.
    pub fn some(&mut self, wanted: usize) -> usize {
        let given = wanted.min(self.0);
        self.0 -= given;
        given
    }

    /// All `wanted` lines, or none: whether they were given.
    pub fn all(&mut self, wanted: usize) -> bool {
        let fits = wanted <= self.0;
        if fits {
            self.0 -= wanted;
        }
        fits
    }

    /// How many of `pieces`, taken in order, are given whole: the first that does not fit
    /// stops the rest, so what is kept is always a list's beginning.
    pub fn leading(&mut self, pieces: impl IntoIterator<Item = usize>) -> usize {
        pieces
            .into_iter()
            .take_while(|&wanted| self.all(wanted))
            .count()
    }

    /// Which pieces are kept, each given whole or not at all: a piece is its priority (lower
    /// matters more) and its lines, asked in order of priority and, among equals, in reading
    /// order; the answer is in reading order.
    pub fn by_priority(&mut self, pieces: &[(u8, usize)]) -> Vec<bool> {
        let mut order: Vec<usize> = (0..pieces.len()).collect();
        order.sort_by_key(|&index| (pieces[index].0, index));
        let mut keep = vec![false; pieces.len()];
        for index in order {
            keep[index] = self.all(pieces[index].1);
        }
        keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_is_given_whole_or_in_part_as_asked() {
        let mut room = Room::new(5);
        assert_eq!(room.some(2), 2);
        assert!(!room.all(4));
        assert!(room.all(3));
        assert_eq!(room.some(1), 0);
        assert_eq!(room.left(), 0);
    }

    #[test]
    fn a_lists_beginning_is_kept_up_to_the_first_piece_that_does_not_fit() {
        let mut room = Room::new(6);
        // The third piece does not fit; the fourth would, but a list keeps its beginning.
        assert_eq!(room.leading([2, 3, 4, 1]), 2);
        assert_eq!(room.left(), 1);
    }

    #[test]
    fn the_most_important_pieces_that_fit_are_kept() {
        let mut room = Room::new(4);
        // The third piece matters most; the first does not fit after it, the last does.
        let kept = room.by_priority(&[(1, 3), (2, 2), (0, 2), (1, 1)]);
        assert_eq!(kept, [false, false, true, true]);
        assert_eq!(room.left(), 1);
    }
}
