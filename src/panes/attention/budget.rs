//! How the attention pane's height is shared when not everything fits, and which rows of the
//! heat map and the outputs it draws.

use super::{Cells, FINDING_LEAST, Grid};
use crate::ui::room::Room;
use crate::ui::vector::window;

/// How the pane's height is shared when not everything fits.
#[expect(
    clippy::struct_excessive_bools,
    reason = "each says whether one piece of the pane is drawn"
)]
pub(super) struct Budget {
    pub(super) caption: bool,
    /// The current row's weights as numbers, under a map too narrow to print them.
    pub(super) row_values: bool,
    pub(super) texts: bool,
    pub(super) heat_rows: usize,
    pub(super) output_rows: usize,
    pub(super) finding: usize,
    /// The copies' claim, with their rows in the map and among the outputs.
    pub(super) copies: bool,
    /// The rows of the current word's copies that the finding compares.
    pub(super) evidence: bool,
    pub(super) extra: bool,
}

impl Budget {
    /// The heat map's positions and the current row come first, then the finding's first
    /// lines, the heat-map rows of the copies the finding compares (if it does), the current
    /// token's output (what its weights made), the rest of the finding (cut
    /// short if need be), the scheme's own lines, the current row's weights as numbers (when
    /// the cells have none), the rest of the heat map, the token texts above it, the other
    /// outputs and last the caption. The claim about the current word's copies comes with their
    /// rows and outputs, all or nothing, after the current output.
    ///
    /// `text` is the finding's lines and the scheme's own; `copies` is how many copy rows
    /// besides the current one the claim points at, and the claim's lines; `evidence` is how
    /// many copy rows besides the current one the finding compares.
    pub(super) fn share(
        height: usize,
        grid: &Grid,
        per_output: usize,
        text: (usize, usize),
        copies: (usize, usize),
        evidence: usize,
    ) -> Self {
        let (finding, extra) = text;
        let (copy_rows, copy_lines) = copies;
        let count = grid.members.len();
        let mut room = Room::new(height.saturating_sub(2));
        let per_output = per_output.max(1);
        let finding_first = room.some(finding.min(FINDING_LEAST));
        let evidence_rows = if evidence > 0 && room.all(evidence) {
            evidence
        } else {
            0
        };
        let current_output = room.all(1 + per_output);
        let copies =
            copy_lines > 0 && current_output && room.all(copy_rows * (1 + per_output) + copy_lines);
        let pinned = if copies { copy_rows } else { 0 };
        let finding = finding_first + room.some(finding - finding_first);
        let extra = room.all(extra);
        let row_values = grid.shows_row_values() && room.all(1);
        let heat_pinned = pinned + evidence_rows;
        let heat_rows = 1 + heat_pinned + room.some(count.saturating_sub(1 + heat_pinned));
        let texts = grid.cells == Cells::Numbers && room.all(1);
        let output_rows = if current_output {
            let more = count
                .saturating_sub(1 + pinned)
                .min(room.left() / per_output);
            room.some(more * per_output);
            1 + pinned + more
        } else {
            0
        };
        let caption = room.all(1);
        Self {
            caption,
            row_values,
            texts,
            heat_rows,
            output_rows,
            finding,
            copies,
            evidence: evidence_rows > 0,
            extra,
        }
    }
}

/// The rows to draw in `visible` lines: the current row `keep` and the `pinned` rows, then the
/// rows around the current one, in order.
pub(super) fn rows_shown(
    count: usize,
    visible: usize,
    keep: usize,
    pinned: &[usize],
) -> Vec<usize> {
    let mut rows: Vec<usize> = std::iter::once(keep)
        .chain(pinned.iter().copied())
        .filter(|&row| row < count)
        .take(visible)
        .collect();
    for row in window(count, visible, keep) {
        if rows.len() >= visible {
            break;
        }
        if !rows.contains(&row) {
            rows.push(row);
        }
    }
    rows.sort_unstable();
    rows.dedup();
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_current_row_and_the_pinned_rows_come_first_then_their_neighbours() {
        // Ten rows in three lines: the current row 5 and the pinned 0, then one beside 5.
        assert_eq!(rows_shown(10, 3, 5, &[0]), [0, 4, 5]);
        // Room for all: every row, in order, once.
        assert_eq!(rows_shown(4, 8, 1, &[3]), [0, 1, 2, 3]);
        // A pinned row past the end is never drawn.
        assert_eq!(rows_shown(3, 2, 2, &[7]), [1, 2]);
    }
}
