//! The explorer's models, vocabularies and modes through the real binary in a pseudo-terminal:
//! a model file cut short while open, the words vocabulary with learned positions, the guided
//! lesson, compare mode.

mod pty_session;

use pty_session::{CTRL_C, ENTER, Session, line_with, lock, operator_rows};

/// Writes a safetensors file of one `rows × dims` float32 table named `embed_tokens.weight`,
/// and returns the length of its header (the eight-byte length and the JSON).
fn write_table_file(path: &std::path::Path, rows: usize, dims: usize) -> u64 {
    let mut header = format!(
        r#"{{"embed_tokens.weight":{{"dtype":"F32","shape":[{rows},{dims}],"data_offsets":[0,{}]}}}}"#,
        rows * dims * 4
    );
    while !header.len().is_multiple_of(8) {
        header.push(' ');
    }
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    for index in 0..rows * dims {
        let value = f32::from(u16::try_from(index % 97).expect("small")) / 10.0;
        bytes.extend(value.to_le_bytes());
    }
    std::fs::write(path, bytes).expect("the model file is written");
    8 + header.len() as u64
}

#[test]
fn a_model_file_cut_short_while_open_restores_the_terminal_and_says_so() {
    let folder = std::env::temp_dir().join(format!("embedlens-pty-sigbus-{}", std::process::id()));
    std::fs::create_dir_all(&folder).expect("a temp folder");
    let path = folder.join("model.safetensors");
    let header = write_table_file(&path, 4096, 4);
    let mut session = Session::launch(&["--model", path.to_str().expect("a UTF-8 path")]);
    session.wait_for_all(&["2 4 0 2", "Weight matrix"]);
    // Another program cuts the file to its header; row 4000 lies far past the new end.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .and_then(|file| file.set_len(header))
        .expect("the file is cut short");
    session.press(b" 4000");
    let (status, raw) = session.wait_for_exit();
    let _ = std::fs::remove_dir_all(&folder);
    let screen = lock(&session.output).parser.screen().contents();
    assert_eq!(status.exit_code(), 1, "{status}; the screen was:\n{screen}");
    assert!(
        screen.contains("the model file was cut short while it was open"),
        "the message is on the restored screen:\n{screen}"
    );
    session.assert_restored(&raw);
}

#[test]
fn words_vocabulary_with_learned_positions_from_the_command_line() {
    let mut session = Session::launch(&[
        "--vocab",
        "words",
        "--positions",
        "learned",
        "the cat sat on the mat",
    ]);
    session.wait_for_text("the cat sat on the mat");
    session.press(ENTER);
    let screen = session.wait_for_text("EXPLORE");
    let title = line_with(&screen, &["Weight matrix"]);
    assert!(
        title.contains("words"),
        "the matrix title names the vocabulary: {title:?}"
    );
    assert!(
        screen.contains("token + learned position = input vector"),
        "the lookups start with learned positions added:\n{screen}"
    );
    let added = operator_rows(&screen, "+");
    assert!(
        added > 0 && operator_rows(&screen, "=") == added,
        "every token shown has a `+` and an `=` row:\n{screen}"
    );
    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn the_guided_lesson_asks_before_it_shows_and_can_be_left_and_resumed() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(b"\r");
    session.wait_for_text("EXPLORE");
    session.press(b"L");
    let question =
        session.wait_for_all(&["step 1 of 7", "What comes out?", "Hidden until you guess"]);
    assert!(
        question.contains("1)") && question.contains("2)"),
        "{question}"
    );
    session.press(b"2");
    session.wait_for_all(&["Right, and the panes above show it", "One-hot"]);
    session.press(b"\r");
    session.wait_for_all(&["step 2 of 7", "The repeated word"]);
    session.press(b"1");
    session.wait_for_text("distance 0.0000");
    // Leave in the middle, then resume at the same step.
    session.press(b"\x1b");
    session.wait_for_text("left the lesson at step 2 of 7");
    session.press(b"L");
    session.wait_for_text("step 2 of 7");
    for answer in [b"2", b"1", b"2", b"2"] {
        session.press(b"\r");
        session.press(answer);
    }
    session.wait_for_all(&["step 6 of 7", "RoPE"]);
    session.press(b"\r");
    session.wait_for_text("step 7 of 7");
    session.press(b"\r");
    session.wait_for_text("lesson finished");
    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn compare_mode_from_the_keyboard() {
    let mut session = Session::launch(&[]);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(b"\rc");
    session.wait_for_all(&["SAME SET OF TOKEN VECTORS", "a shows each word's output"]);
    // `a`: each word's attention output below the vectors, and the verdict on them.
    session.press(b"a");
    session.wait_for_all(&["SAME SET OF TOKEN VECTORS", "Attention outputs: identical"]);
    session.press(b"p");
    session.wait_for_all(&["DIFFERENT INPUT VECTORS", "get a different output"]);
    session.press(b"q");
    session.assert_clean_exit();
}

#[test]
fn compare_mode_takes_a_very_long_sentence_within_bounds_and_says_what_was_left_out() {
    // 1 GiB of address space: the unbounded attention matrix asked for 180 GB here.
    let mut session = Session::launch_limited(&["--vocab", "words"], 1 << 20);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(b"\rc");
    session.wait_for_text("SAME SET OF TOKEN VECTORS");
    session.press(b"i");
    session.wait_for_text("Sentences A and B · typing");
    let long = "the dog bites the man ".repeat(300_000 / 22);
    session.paste_bounded(&long);
    session.wait_for_all(&["A: first 128 of ", "Only the first 128 tokens", "left out"]);
    session.press_bounded(CTRL_C.to_vec());
    session.assert_clean_exit();
}

#[test]
fn the_whole_lesson_at_80_by_24_and_the_sentence_comes_back() {
    let mut session = Session::launch(&[]);
    session.resize(24, 80);
    session.wait_for_all(&["fox bites the fox", "Weight matrix"]);
    session.press(b"\x15dog bites man\r");
    session.wait_for_text("EXPLORE");
    session.press(b"L");
    session.wait_for_all(&["step 1 of 7", "ids hidden until you answer"]);
    let answers: [&[u8]; 6] = [b"2", b"1", b"1", b"2", b"1", b"2"];
    for (step, answer) in answers.into_iter().enumerate() {
        session.wait_for_text(&format!("step {} of 7", step + 1));
        session.press(answer);
        session.wait_for_text("✔ Right");
        session.press(b"\r");
    }
    session.wait_for_text("step 7 of 7");
    session.press(b"\r");
    session.wait_for_all(&["lesson finished", "dog bites man"]);
    session.press(b"q");
    session.assert_clean_exit();
}
