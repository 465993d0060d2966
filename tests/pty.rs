//! The explorer through the real binary in a pseudo-terminal, as a terminal meets it: a
//! session that types, steps, resizes and quits clean; bursts of keys; colour and the theme;
//! the mouse; a signal from outside; the screen written out and the clipboard.
//!
//! The session and its waits are in `pty_session/`; the explorer's panes and modes are in
//! `pty_explorer.rs`, long and unusual text in `pty_text.rs`.

mod pty_session;

use portable_pty::CommandBuilder;
use pty_session::{
    COLS, CTRL_C, END, ENTER, RIGHT, ROWS, Session, TIMEOUT, learned_distance, lock, operator_rows,
    pane, rfind, wait_for,
};

#[test]
fn a_session_types_steps_adds_positions_survives_a_resize_and_quits_clean() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    #[cfg(target_os = "linux")]
    assert!(session.raw_mode(), "the explorer runs in raw mode");

    // Focus starts in the input with the cursor at the end, so typing appends a token.
    session.press(b" quick");
    session.wait_for_all(&["fox bites the fox quick", "4 quick #1"]);

    session.press(ENTER);
    session.wait_for_text("EXPLORE");
    for chip in ["▶1 bites #4", "▶2 the #0", "▶3 fox #2"] {
        session.press(RIGHT);
        session.wait_for_text(chip);
    }
    let screen = session.wait_for_text("fox at 0 and 3: same row 2, Euclidean distance 0.0000");
    let matrix = pane(&screen, "Weight matrix");
    let marked: Vec<&String> = matrix.iter().filter(|row| row.contains('▶')).collect();
    assert!(
        matches!(marked[..], [row] if row.contains("2 fox") && row.contains("1.2753 -0.2010 -0.1606")),
        "the matrix marks row 2, fox, with its values, and only that row: {marked:?}\n{screen}"
    );

    session.press(b"p");
    let screen = wait_for(
        &session.output,
        "learned positions in the readout and the lookups",
        |screen| {
            screen.contains("with learned positions")
                && screen.contains("token + learned position = input vector")
        },
        TIMEOUT,
    );
    for operator in ["+", "="] {
        assert_eq!(
            operator_rows(&screen, operator),
            5,
            "each of the 5 tokens has a `{operator}` row:\n{screen}"
        );
    }
    let distance = learned_distance(&screen);
    assert!(
        distance > 0.0,
        "learned positions pull the two foxes apart, but the distance is {distance}:\n{screen}"
    );

    session.press(b"m");
    session.wait_for_all(&[
        "token + sinusoidal position = input vector",
        "with sinusoidal positions",
    ]);

    session.resize(8, 30);
    session.wait_for_text("too small");
    session.resize(ROWS, COLS);
    // Nothing typed or chosen was lost while the panes could not be drawn.
    session.wait_for_all(&[
        "fox bites the fox quick",
        "Weight matrix",
        "token + sinusoidal position = input vector",
        "▶3 fox #2",
    ]);

    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn ctrl_c_in_the_input_quits_clean() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_C);
    session.assert_clean_exit();
}

/// A thousand arrow keys in one write, as key repeat or a paste produces them.
fn key_burst() -> Vec<u8> {
    RIGHT.repeat(1_000)
}

#[test]
fn a_burst_of_a_thousand_keys_then_ctrl_c_quits_clean() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    let mut burst = key_burst();
    burst.extend_from_slice(CTRL_C);
    session.press_bounded(burst);
    session.assert_clean_exit();
}

#[test]
fn a_burst_of_keys_with_a_resize_among_them_is_read_to_the_end() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(ENTER);
    session.wait_for_text("EXPLORE");
    // Every key of the burst must be read: the last one steps to the last token.
    session.press_bounded(key_burst());
    session.resize(30, 100);
    session.press_bounded(key_burst());
    session.press_bounded(END.to_vec());
    session.wait_for_text("▶3 fox #2");
    session.press_bounded(CTRL_C.to_vec());
    session.assert_clean_exit();
}

/// Whether the bytes set a foreground or background colour: a Select Graphic Rendition
/// sequence (`ESC [ … m`) with a colour parameter (30–38, 40–48, 90–97 or 100–107).
fn sets_a_colour(raw: &[u8]) -> bool {
    let mut rest = raw;
    while let Some(start) = rest.windows(2).position(|pair| pair == b"\x1b[") {
        rest = &rest[start + 2..];
        let Some(end) = rest.iter().position(|byte| (0x40..=0x7e).contains(byte)) else {
            break;
        };
        let (parameters, last) = (&rest[..end], rest[end]);
        if last == b'm' {
            let colour = parameters
                .split(|&byte| byte == b';')
                .filter_map(|number| std::str::from_utf8(number).ok()?.parse::<u16>().ok())
                .any(|number| matches!(number, 30..=38 | 40..=48 | 90..=97 | 100..=107));
            if colour {
                return true;
            }
        }
        rest = &rest[end..];
    }
    false
}

#[test]
fn a_dumb_terminal_gets_no_colour() {
    for (term, coloured) in [("xterm-256color", true), ("dumb", false)] {
        let mut session = Session::launch_with_term(&[], term);
        session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
        session.press(b"q");
        // q types in the input; Ctrl+C quits.
        session.press(CTRL_C);
        session.assert_clean_exit();
        let raw = lock(&session.output).raw.clone();
        assert_eq!(sets_a_colour(&raw), coloured, "TERM={term}");
    }
}

#[test]
fn auto_theme_asks_a_terminal_that_never_answers_and_still_opens_dark() {
    let mut command = CommandBuilder::new(env!("CARGO_BIN_EXE_embedlens"));
    command.env("EMBEDLENS_THEME", "auto");
    let mut session = Session::spawn(command, "xterm-256color");
    // This terminal answers nothing: the explorer opens after the short wait, in the dark
    // theme, which leaves the background to the terminal.
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    let raw = lock(&session.output).raw.clone();
    assert!(
        rfind(&raw, b"\x1b]11;?").is_some(),
        "asked for the background colour"
    );
    assert!(
        rfind(&raw, b"48;2;255;255;255").is_none(),
        "no white painted"
    );
    session.press(CTRL_C);
    session.assert_clean_exit();
}

/// A left click at a 0-based cell as a terminal in SGR mouse mode reports it: press, release.
fn sgr_click((column, row): (usize, usize)) -> Vec<u8> {
    format!(
        "\x1b[<0;{x};{y}M\x1b[<0;{x};{y}m",
        x = column + 1,
        y = row + 1
    )
    .into_bytes()
}

/// One notch of the wheel, down, at a 0-based cell (SGR button 65).
fn sgr_wheel_down((column, row): (usize, usize)) -> Vec<u8> {
    format!("\x1b[<65;{};{}M", column + 1, row + 1).into_bytes()
}

/// The 0-based cell where `needle` starts on the first row of the screen holding `row_has`.
fn cell_of(screen: &str, row_has: &str, needle: &str) -> (usize, usize) {
    let (row, line) = screen
        .lines()
        .enumerate()
        .find(|(_, line)| line.contains(row_has) && line.contains(needle))
        .unwrap_or_else(|| panic!("no row with '{row_has}' and '{needle}':\n{screen}"));
    let byte = line.find(needle).unwrap();
    (line[..byte].chars().count(), row)
}

#[test]
fn clicks_and_the_wheel_step_go_to_a_row_and_scroll() {
    let mut session = Session::launch(&["--vocab", "words", "the dog bites the man"]);
    let screen = session.wait_for_all(&["the dog bites the man", "Weight matrix"]);
    {
        let raw = &lock(&session.output).raw;
        assert!(
            rfind(raw, b"\x1b[?1000h\x1b[?1006h").is_some(),
            "mouse reports on"
        );
    }
    // A token in the strip, clicked while typing: the explorer steps to it.
    session.press(&sgr_click(cell_of(&screen, "#", "bites #")));
    session.wait_for_text("▶2 bites");
    // The whole frame, not the token strip alone: the matrix's rows are read from it.
    let screen = session.wait_settled();
    // A row of the matrix, a few below the current one: gone to, marked as the cursor.
    let row_line = screen
        .lines()
        .skip_while(|line| !line.contains("Weight matrix"))
        .nth(4)
        .expect("matrix rows")
        .to_owned();
    let words: Vec<&str> = row_line.trim_matches('│').split_whitespace().collect();
    let (id, token) = (words[0].to_owned(), words[1].to_owned());
    session.press(&sgr_click(cell_of(
        &screen,
        &format!(" {id} {token} "),
        &token,
    )));
    let screen = wait_for(
        &session.output,
        "the clicked row marked as the cursor",
        |screen| {
            screen
                .lines()
                .any(|line| line.contains('›') && line.contains(&format!(" {id} {token} ")))
        },
        TIMEOUT,
    );
    // The wheel over the matrix: three rows a notch, the range in its border moves.
    let border = |screen: &str| {
        screen
            .lines()
            .find(|line| line.contains(" rows "))
            .map(str::to_owned)
            .unwrap_or_default()
    };
    let before = border(&screen);
    let matrix = cell_of(&screen, "Weight matrix", "Weight matrix");
    session.press(&sgr_wheel_down((matrix.0, matrix.1 + 3)));
    session.press(&sgr_wheel_down((matrix.0, matrix.1 + 3)));
    wait_for(
        &session.output,
        "the matrix scrolled",
        |screen| border(screen) != before && !border(screen).is_empty(),
        TIMEOUT,
    );
    session.press(CTRL_C);
    session.assert_clean_exit();
}

#[test]
fn no_mouse_leaves_the_mouse_to_the_terminal() {
    let mut session = Session::launch(&["--no-mouse"]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(CTRL_C);
    session.assert_clean_exit();
    let raw = lock(&session.output).raw.clone();
    assert!(
        rfind(&raw, b"\x1b[?1000h").is_none(),
        "no mouse reports asked for"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn a_signal_from_outside_restores_the_terminal_and_ends_as_the_signal_does() {
    for signal in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGQUIT] {
        let mut session = Session::launch(&[]);
        session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
        let pid = session
            .child
            .process_id()
            .expect("the child has a process id");
        #[expect(
            unsafe_code,
            reason = "kill(2) sends a signal to the child; no memory is touched"
        )]
        // SAFETY: kill only sends a signal to the process the test started.
        let sent = unsafe { libc::kill(libc::pid_t::try_from(pid).expect("a pid"), signal) };
        assert_eq!(sent, 0, "the signal was sent");
        let (status, raw) = session.wait_for_exit();
        assert!(
            !status.success() && status.signal().is_some(),
            "signal {signal}: ended by the signal, as its default action ends a process: {status}"
        );
        session.assert_restored(&raw);
    }
}

#[test]
fn e_writes_the_screen_in_a_real_terminal_and_never_overwrites() {
    let dir = std::env::temp_dir().join(format!("embedlens-pty-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temp folder");
    let dir_arg = dir.to_str().expect("a UTF-8 temp path");
    let mut session = Session::launch(&["--export-dir", dir_arg, "fox bites the fox"]);
    session.wait_for_text("Weight matrix");
    session.press(ENTER);
    for _ in 0..3 {
        session.press(RIGHT);
    }
    session.wait_for_text("▶3 fox #2");
    session.press(b"e");
    let screen = session.wait_for_text("wrote fox");
    assert!(
        screen.contains("fox-bites-the-fox.svg, .html, .txt in"),
        "{screen}"
    );
    let text = std::fs::read_to_string(dir.join("fox-bites-the-fox.txt")).expect("the text file");
    // The file is the screen as it was drawn when `e` was pressed: all but the status line.
    let shown: Vec<&str> = screen.lines().map(str::trim_end).collect();
    let written: Vec<&str> = text.lines().collect();
    assert_eq!(written.len(), usize::from(ROWS));
    assert_eq!(written[..written.len() - 1], shown[..written.len() - 1]);
    let svg = std::fs::read_to_string(dir.join("fox-bites-the-fox.svg")).expect("the picture");
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1200\" height=\"720\"")
    );
    assert!(dir.join("fox-bites-the-fox.html").exists());
    session.press(b"e");
    session.wait_for_text("fox-bites-the-fox-2.svg");
    session.press(b"q");
    session.assert_clean_exit();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Standard base64 (with `=` padding) decoded, as OSC 52 carries the clipboard's text.
fn base64_decode(text: &[u8]) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("{c} is not base64"),
        }
    };
    let mut bytes = Vec::new();
    for chunk in text.chunks(4) {
        let digits: Vec<u8> = chunk.iter().copied().filter(|&c| c != b'=').collect();
        let bits =
            digits.iter().fold(0u32, |bits, &c| (bits << 6) | value(c)) << (6 * (4 - digits.len()));
        let count = digits.len().saturating_sub(1);
        bytes.extend_from_slice(&bits.to_be_bytes()[1..=count]);
    }
    bytes
}

#[test]
fn y_copies_the_snippet_to_the_clipboard_with_osc_52() {
    let mut session = Session::launch(&["fox bites the fox"]);
    session.wait_for_text("Weight matrix");
    session.press(ENTER);
    session.press(b"p");
    session.wait_for_text("with learned positions");
    session.press(b"y");
    session.wait_for_text("Copied to the clipboard (OSC 52)");
    let raw = lock(&session.output).raw.clone();
    let start = rfind(&raw, b"\x1b]52;c;").expect("an OSC 52 sequence was written") + 7;
    let length = raw[start..]
        .windows(2)
        .position(|pair| pair == b"\x1b\\")
        .expect("the sequence ends with ST");
    let copied = base64_decode(&raw[start..start + length]);
    let printed = std::process::Command::new(env!("CARGO_BIN_EXE_embedlens"))
        .args(["snippet", "fox bites the fox", "--positions", "learned"])
        .output()
        .expect("embedlens snippet runs");
    assert_eq!(
        String::from_utf8(copied).unwrap(),
        String::from_utf8(printed.stdout).unwrap(),
        "the clipboard gets the script embedlens snippet prints"
    );
    session.press(b"\x1b");
    session.wait_for_text("EXPLORE");
    session.press(b"q");
    session.assert_clean_exit();
}
