//! The reader against files written by the reference implementation and by [`GgufWriter`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/gguf")
        .join(name)
}

fn read(writer: &GgufWriter) -> anyhow::Result<GgufFile> {
    GgufFile::from_bytes(Arc::new(writer.to_bytes()), Path::new("test.gguf"))
}

fn error_of(writer: &GgufWriter) -> String {
    format!("{:#}", read(writer).unwrap_err())
}

#[test]
fn every_type_dequantizes_bit_for_bit_as_the_reference_does() {
    let file = GgufFile::open(&fixture("reference.gguf")).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(fixture("expected.json")).unwrap()).unwrap();
    let expected = expected.as_object().unwrap();
    assert_eq!(expected.len(), 13, "one table per supported type");
    for (name, case) in expected {
        let table = file.table(name).unwrap();
        let kind = case["type"].as_str().unwrap();
        assert_eq!(file.tensor(name).unwrap().ggml_type.name(), Some(kind));
        assert_eq!(table.dtype().unwrap().to_string(), kind.to_lowercase());
        let rows = case["bits"].as_array().unwrap();
        assert_eq!((table.rows(), table.cols()), (rows.len(), 256), "{name}");
        for (index, bits) in rows.iter().enumerate() {
            let want: Vec<u32> = bits
                .as_str()
                .unwrap()
                .split(' ')
                .map(|word| u32::from_str_radix(word, 16).unwrap())
                .collect();
            let got: Vec<u32> = table
                .row(index)
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect();
            assert_eq!(got, want, "{name} row {index}");
        }
        let mut visited = 0;
        table.for_each_row(|index, row| {
            let direct = table.row(index).unwrap();
            assert!(
                row.iter()
                    .zip(&direct)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
            visited += 1;
        });
        assert_eq!(visited, rows.len());
    }
}

#[test]
fn the_reference_files_metadata_reads_back() {
    let file = GgufFile::open(&fixture("reference.gguf")).unwrap();
    assert_eq!(file.version(), 3);
    assert_eq!(file.text("general.architecture"), Some("llama"));
    assert_eq!(
        file.get("llama.context_length")
            .and_then(MetadataValue::as_u64),
        Some(16)
    );
    assert_eq!(
        file.get("llama.rope.freq_base")
            .and_then(MetadataValue::as_f64),
        Some(10000.0)
    );
    assert_eq!(file.tensor("q4_k.weight").unwrap().shape(), [2, 256]);
}

#[test]
fn versions_two_and_three_read_alike() {
    for version in [2, 3] {
        let writer = GgufWriter::new()
            .version(version)
            .text("general.architecture", "gpt2")
            .metadata("flag", MetadataValue::Bool(true))
            .metadata("eps", MetadataValue::F32(1e-5))
            .metadata(
                "nested",
                MetadataValue::Array(vec![MetadataValue::Array(vec![MetadataValue::I8(-1)])]),
            )
            .f32_table("token_embd.weight", 3, 2, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
            .f32_table("output_norm.weight", 1, 2, &[0.5, 0.25]);
        let file = read(&writer).unwrap();
        assert_eq!(file.version(), version);
        assert_eq!(file.get("flag"), Some(&MetadataValue::Bool(true)));
        assert_eq!(file.get("eps"), Some(&MetadataValue::F32(1e-5)));
        assert_eq!(file.metadata().len(), 4);
        let table = file.table("token_embd.weight").unwrap();
        assert_eq!(table.row(2).unwrap().to_vec(), [5.0, 6.0]);
        assert_eq!(
            file.table("output_norm.weight")
                .unwrap()
                .row(0)
                .unwrap()
                .to_vec(),
            [0.5, 0.25]
        );
    }
}

#[test]
fn a_one_dimensional_tensor_is_one_row() {
    let writer = GgufWriter::new().tensor(
        "blk.0.attn_norm.weight",
        &[3],
        GgmlType(0),
        [1.0f32, 2.0, 3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    );
    let table = read(&writer)
        .unwrap()
        .table("blk.0.attn_norm.weight")
        .unwrap();
    assert_eq!((table.rows(), table.cols()), (1, 3));
}

#[test]
fn unsupported_types_and_partial_blocks_are_refused_by_name() {
    let iq2 = GgmlType(16);
    let writer = GgufWriter::new().tensor("token_embd.weight", &[2, 256], iq2, vec![0; 2 * 66]);
    let error = format!(
        "{:#}",
        read(&writer)
            .unwrap()
            .table("token_embd.weight")
            .unwrap_err()
    );
    assert!(
        error.contains("token_embd.weight is IQ2_XXS, which embedlens cannot dequantize"),
        "{error}"
    );
    assert!(error.contains("Q8_0") && error.contains("Q6_K"), "{error}");

    let writer = GgufWriter::new().tensor("token_embd.weight", &[2, 48], GgmlType(8), vec![0; 100]);
    let error = format!(
        "{:#}",
        read(&writer)
            .unwrap()
            .table("token_embd.weight")
            .unwrap_err()
    );
    assert!(
        error.contains("blocks of 32 numbers, and 48 is not a multiple of 32"),
        "{error}"
    );

    let error = format!("{:#}", read(&writer).unwrap().table("wte").unwrap_err());
    assert!(
        error.contains("no tensor named wte; it holds token_embd.weight"),
        "{error}"
    );
}

#[test]
fn damaged_files_get_messages_that_say_what_is_wrong() {
    let good = GgufWriter::new()
        .text("general.architecture", "llama")
        .f32_table("token_embd.weight", 2, 2, &[1.0; 4]);
    let bytes = good.to_bytes();
    let parse = |bytes: Vec<u8>| {
        format!(
            "{:#}",
            GgufFile::from_bytes(Arc::new(bytes), Path::new("m.gguf")).unwrap_err()
        )
    };

    assert!(parse(b"PK\x03\x04".to_vec()).contains("m.gguf: not a GGUF file"));
    assert!(error_of(&good.clone().version(1)).contains("version 1"));
    assert!(
        error_of(&good.clone().version(7)).contains("GGUF version 7 is not one embedlens knows")
    );
    let mut big_endian = bytes.clone();
    big_endian[4..8].copy_from_slice(&3u32.to_be_bytes());
    assert!(parse(big_endian).contains("big-endian"));
    let cut = parse(bytes[..60].to_vec());
    assert!(cut.contains("truncated GGUF header"), "{cut}");
    let short_data = parse(bytes[..bytes.len() - 4].to_vec());
    assert!(
        short_data
            .contains("truncated GGUF file: tensor token_embd.weight (2×2 F32) needs 16 bytes"),
        "{short_data}"
    );
    let mut huge_count = bytes.clone();
    huge_count[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(parse(huge_count).contains("truncated or damaged GGUF header: the metadata count"));
    let bad_alignment = good.clone().number("general.alignment", 48);
    assert!(error_of(&bad_alignment).contains("general.alignment is 48, not a power of two"));
}

/// The bytes of a GGUF header holding one metadata array of `count` u8 values, followed by
/// `count` zero bytes: a file whose count is backed by bytes, as a sparse file's is.
fn one_byte_array(count: usize) -> Vec<u8> {
    let mut bytes = b"GGUF".to_vec();
    bytes.extend(3u32.to_le_bytes());
    bytes.extend(0u64.to_le_bytes()); // tensors
    bytes.extend(1u64.to_le_bytes()); // metadata entries
    bytes.extend(1u64.to_le_bytes());
    bytes.push(b'a');
    bytes.extend(9u32.to_le_bytes()); // an array
    bytes.extend(0u32.to_le_bytes()); // of u8
    bytes.extend((count as u64).to_le_bytes());
    bytes.resize(bytes.len() + count, 0);
    bytes
}

#[test]
fn counts_backed_by_bytes_still_ask_for_bounded_memory() {
    let parse = |bytes: Vec<u8>| GgufFile::from_bytes(Arc::new(bytes), Path::new("m.gguf"));
    let too_many = format!(
        "{:#}",
        parse(one_byte_array(MAX_ARRAY_VALUES + 1)).unwrap_err()
    );
    assert!(
        too_many.contains(&format!(
            "a holds {} values, more than the",
            MAX_ARRAY_VALUES + 1
        )),
        "{too_many}"
    );
    assert!(parse(one_byte_array(1000)).is_ok(), "a small array reads");
}

#[test]
fn repeated_names_and_a_float_alignment_are_refused_by_name() {
    let good = GgufWriter::new()
        .text("general.architecture", "llama")
        .f32_table("token_embd.weight", 2, 2, &[1.0; 4]);
    let twice = error_of(&good.clone().text("general.architecture", "gpt2"));
    assert!(
        twice.contains("the key general.architecture appears twice"),
        "{twice}"
    );
    let tensor_twice = error_of(&good.clone().f32_table("token_embd.weight", 2, 2, &[1.0; 4]));
    assert!(
        tensor_twice.contains("the tensor token_embd.weight is listed twice"),
        "{tensor_twice}"
    );
    let float = error_of(&good.metadata("general.alignment", MetadataValue::F32(32.0)));
    assert!(
        float.contains("general.alignment is stored as f32, not as an unsigned integer"),
        "{float}"
    );
}

#[test]
fn a_file_is_told_by_its_magic() {
    let dir = std::env::temp_dir().join(format!("embedlens-gguf-magic-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("x.bin");
    GgufWriter::new().write(&path).unwrap();
    assert!(is_gguf(&path));
    std::fs::write(&path, b"{}").unwrap();
    assert!(!is_gguf(&path));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Parses damaged bytes and reads what they claim, which must answer Ok or Err, never panic.
fn read_everything(bytes: Vec<u8>) {
    let Ok(file) = GgufFile::from_bytes(Arc::new(bytes), Path::new("damaged.gguf")) else {
        return;
    };
    for tensor in file.tensors() {
        if let Ok(table) = file.table(&tensor.name) {
            let _ = table.row(0);
            let _ = table.row(table.rows().saturating_sub(1));
        }
    }
    for (_, value) in file.metadata() {
        let _ = value.to_string();
    }
    if let Ok(built) = metadata_tokenizer(&file) {
        let _ = built.build("damaged");
    }
}

#[test]
fn every_truncation_and_many_damaged_bytes_are_refused_or_read_never_a_panic() {
    let reference = std::fs::read(fixture("reference.gguf")).unwrap();
    let tokenizer = std::fs::read(fixture("tokenizers/spm/model.gguf")).unwrap();
    for bytes in [&reference, &tokenizer] {
        for len in (0..bytes.len().min(4096)).step_by(3) {
            read_everything(bytes[..len].to_vec());
        }
        // A small linear congruential generator: the same damage on every run.
        let mut state = 0x2545_f491_u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            usize::try_from(state >> 33).unwrap()
        };
        for _ in 0..200 {
            let mut damaged = bytes.clone();
            for _ in 0..=(next() % 4) {
                let at = next() % damaged.len().min(2048);
                damaged[at] = u8::try_from(next() % 256).unwrap();
            }
            read_everything(damaged);
        }
    }
}

#[test]
fn arrays_of_numbers_and_strings_stay_packed_and_read_as_written() {
    let tokens: Vec<String> = (0..1000).map(|i| format!("t{i}")).collect();
    let scores: Vec<MetadataValue> = (0..1000u16)
        .map(|i| MetadataValue::F32(-f32::from(i)))
        .collect();
    let writer = GgufWriter::new()
        .texts("tokens", &tokens)
        .metadata("scores", MetadataValue::Array(scores.clone()))
        .metadata(
            "flags",
            MetadataValue::Array(vec![MetadataValue::Bool(true)]),
        );
    let file = read(&writer).unwrap();
    let packed = file.get("tokens").unwrap();
    assert!(matches!(packed, MetadataValue::Packed(_)), "{packed:?}");
    let items = packed.items().unwrap();
    assert_eq!(items.len(), 1000);
    assert_eq!(items.text(999).as_deref(), Some("t999"));
    assert_eq!(items.text(3).as_deref(), Some("t3"));
    assert_eq!(items.text(1000), None);
    assert_eq!(items.strs().unwrap().unwrap()[5], "t5");
    assert_eq!(
        packed.to_string(),
        r#"["t0", "t1", "t2", "t3", … 1000 strings]"#
    );
    let read_scores = file.get("scores").unwrap();
    assert!(matches!(read_scores, MetadataValue::Packed(_)));
    assert_eq!(read_scores, &MetadataValue::Array(scores));
    assert_eq!(
        read_scores.items().unwrap().f32s().unwrap()[7].to_bits(),
        (-7.0f32).to_bits()
    );
    assert!(matches!(file.get("flags"), Some(MetadataValue::Array(_))));
    // Written back as it was read.
    let again = read(&GgufWriter::new().metadata("tokens", packed.clone())).unwrap();
    assert_eq!(again.get("tokens"), Some(packed));
}

#[test]
fn a_string_that_is_not_utf8_reads_with_a_replacement_and_is_named_where_text_must_be_exact() {
    let mut bytes = GgufWriter::new().texts("tokens", &["ab", "cd"]).to_bytes();
    let at = bytes.windows(2).position(|pair| pair == b"cd").unwrap();
    bytes[at] = 0xFF;
    let file = GgufFile::from_bytes(Arc::new(bytes), Path::new("t.gguf")).unwrap();
    let items = file.get("tokens").unwrap().items().unwrap();
    assert_eq!(items.text(1).as_deref(), Some("\u{FFFD}d"));
    assert_eq!(items.strs(), Some(Err(1)));
}
