//! Shards, overrides, tokenizers, inspection, and every way a folder or file can be wrong.

use super::*;

#[test]
fn sharded_folders_follow_the_index() {
    let dir = TempDir::new("sharded");
    write(
        &dir.join("model-00001-of-00002.safetensors"),
        &[counting("transformer.wte.weight", 5, 3, 0.0)],
    );
    write(
        &dir.join("model-00002-of-00002.safetensors"),
        &[
            counting("transformer.wpe.weight", 4, 3, 100.0),
            counting("transformer.h.0.attn.c_attn.weight", 3, 9, 0.0),
        ],
    );
    let index = r#"{"metadata": {"total_size": 0}, "weight_map": {
        "transformer.wte.weight": "model-00001-of-00002.safetensors",
        "transformer.wpe.weight": "model-00002-of-00002.safetensors",
        "transformer.h.0.attn.c_attn.weight": "model-00002-of-00002.safetensors"}}"#;
    std::fs::write(dir.join("model.safetensors.index.json"), index).unwrap();
    let model = open(dir.path()).unwrap();
    assert_eq!(model.family(), ModelFamily::Gpt2);
    assert_eq!(row(&model, 1), [0.375, 0.5, 0.625]);
    assert_eq!(
        model.position_table().unwrap().row(0).unwrap().to_vec(),
        [12.5, 12.625, 12.75]
    );
    assert!(model.detection()[0].contains("2 shards named by model.safetensors.index.json"));

    let inspection = inspect(&FileSource::path(dir.path())).unwrap();
    assert_eq!(inspection.files.len(), 2);
    let wte = &inspection.tensors[2];
    assert_eq!(wte.name, "transformer.wte.weight");
    assert_eq!(file_name(&wte.file), "model-00001-of-00002.safetensors");

    // An index that names a tensor its shard lacks is an error naming the index.
    let broken = index.replace(
        "\"transformer.wte.weight\": \"model-00001",
        "\"transformer.wte.weight\": \"model-00002",
    );
    std::fs::write(dir.join("model.safetensors.index.json"), broken).unwrap();
    let error = open_error(dir.path());
    assert!(
        error.contains(
            "model.safetensors.index.json: says transformer.wte.weight is in model-00002"
        ),
        "{error}"
    );
}

#[test]
fn overrides_choose_the_tables() {
    let dir = TempDir::new("overrides");
    let file = dir.join("custom.safetensors");
    write(
        &file,
        &[
            counting("encoder.tok.weight", 4, 2, 0.0),
            counting("encoder.pos.weight", 3, 2, 10.0),
        ],
    );
    let error = open_error(&file);
    assert!(error.contains("found no embedding table"), "{error}");
    assert!(
        error.contains("encoder.pos.weight, encoder.tok.weight"),
        "{error}"
    );

    let options = OpenOptions {
        token_tensor: Some("encoder.tok.weight".to_owned()),
        ..OpenOptions::default()
    };
    let model = crate::core::files::open(&FileSource::path(&file), &options)
        .map(|opened| opened.model)
        .unwrap();
    assert_eq!(model.family(), ModelFamily::Unknown);
    assert_eq!(model.block(), &EmbeddingBlock::TokenOnly);

    let options = OpenOptions {
        token_tensor: Some("encoder.tok.weight".to_owned()),
        position_tensor: Some("encoder.pos.weight".to_owned()),
        tokenizer: None,
    };
    let model = crate::core::files::open(&FileSource::path(&file), &options)
        .map(|opened| opened.model)
        .unwrap();
    assert_eq!(model.block(), &EmbeddingBlock::Sum);
    assert_eq!(model.context_length(), 3);
    assert!(
        model
            .detection()
            .iter()
            .any(|s| s == "position table: encoder.pos.weight (chosen by name), 3×2 f32")
    );

    let options = OpenOptions {
        position_tensor: Some("encoder.missing.weight".to_owned()),
        ..options
    };
    let error = format!(
        "{:#}",
        crate::core::files::open(&FileSource::path(&file), &options)
            .map(|opened| opened.model)
            .unwrap_err()
    );
    assert!(
        error.contains("custom.safetensors: no tensor named encoder.missing.weight; it holds"),
        "{error}"
    );
}

#[test]
fn missing_paths_and_empty_folders_are_named() {
    let dir = TempDir::new("missing");
    let error = open_error(&dir.join("nothing-here"));
    assert!(
        error.ends_with("nothing-here: no such file or folder"),
        "{error}"
    );
    let error = open_error(dir.path());
    assert!(
        error.contains("no safetensors file in this folder"),
        "{error}"
    );
    let error = inspect(&FileSource::path(dir.path()))
        .unwrap_err()
        .to_string();
    assert!(error.contains("no safetensors file"), "{error}");
}

#[test]
fn truncated_and_corrupt_files_are_named() {
    let dir = TempDir::new("corrupt");
    let valid = serialize(&gpt2_specs("wte.weight", "wpe.weight"));
    let file = dir.join("model.safetensors");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (valid[..4].to_vec(), "only 4 bytes, too short"),
        (
            valid[..20].to_vec(),
            "the header length in the first 8 bytes says",
        ),
        (
            valid[..valid.len() - 5].to_vec(),
            "the header says the tensor data takes 108 bytes, but only 103 follow",
        ),
        (
            {
                let mut bytes = valid.clone();
                bytes[..8].copy_from_slice(&1_000_000u64.to_le_bytes());
                bytes
            },
            "says 1000000 bytes, but only",
        ),
        (
            raw_file(
                r#"{"wte.weight":{"dtype":"F32","shape":[2,4],"data_offsets":[0,32]}}"#,
                &[0; 24],
            ),
            "the header says the tensor data takes 32 bytes, but only 24 follow",
        ),
        (
            raw_file(r#"{"wte.weight": not json"#, &[]),
            "not valid safetensors JSON",
        ),
        (
            raw_file(
                r#"{"wte.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[0,32]}}"#,
                &[0; 32],
            ),
            "data_offsets do not match its shape and dtype",
        ),
    ];
    for (bytes, expected) in cases {
        std::fs::write(&file, &bytes).unwrap();
        for error in [
            open_error(dir.path()),
            format!("{:#}", inspect(&FileSource::path(dir.path())).unwrap_err()),
        ] {
            assert!(error.contains("model.safetensors: "), "{error}");
            assert!(error.contains(expected), "{error}\nwanted: {expected}");
        }
    }
}

#[test]
fn tables_must_be_two_dimensional_floats_of_one_width() {
    let dir = TempDir::new("shapes");
    let file = dir.join("model.safetensors");
    let ids: Vec<u8> = (0..6i64).flat_map(i64::to_le_bytes).collect();
    let cases: Vec<(Vec<Spec>, &str)> = vec![
        (
            vec![Spec {
                name: "wte.weight",
                dtype: ::safetensors::Dtype::I64,
                shape: vec![2, 3],
                bytes: ids,
            }],
            "model.safetensors: tensor wte.weight is I64; embedding tables must be f32, f16 or bf16",
        ),
        (
            vec![f32_tensor("wte.weight", &[1, 2, 3], &[0.0; 6])],
            "tensor wte.weight has shape [1, 2, 3]; an embedding table must be two-dimensional",
        ),
        (
            vec![
                counting("wte.weight", 2, 3, 0.0),
                counting("wpe.weight", 2, 4, 0.0),
            ],
            "the token table wte.weight is 3 wide but the position table wpe.weight is 4 wide",
        ),
        (
            vec![f32_tensor("wte.weight", &[0, 3], &[])],
            "is 0×3; an embedding table needs at least one row",
        ),
    ];
    for (specs, expected) in cases {
        write(&file, &specs);
        let error = open_error(&file);
        assert!(error.contains(expected), "{error}\nwanted: {expected}");
        // Inspect still lists the tensors and says why they cannot be read.
        let inspection = inspect(&FileSource::path(&file)).unwrap();
        assert!(inspection.detection.join("\n").contains(expected));
    }
}

#[test]
fn malformed_config_is_named() {
    let dir = TempDir::new("config");
    write(&dir.join("model.safetensors"), &bert_specs());
    std::fs::write(dir.join("config.json"), "{ not json").unwrap();
    let error = open_error(dir.path());
    assert!(error.contains("config.json: not valid JSON"), "{error}");
    std::fs::write(dir.join("config.json"), r#"{"layer_norm_eps": "small"}"#).unwrap();
    let error = open_error(dir.path());
    assert!(
        error.contains("config.json: layer_norm_eps is \"small\", not a number"),
        "{error}"
    );
    std::fs::write(dir.join("config.json"), "[1, 2]").unwrap();
    assert!(open_error(dir.path()).contains("config.json: expected a JSON object"));
}

#[test]
fn a_tokenizer_past_the_table_or_short_of_it_is_warned_about() {
    let words = |n: usize| {
        TextTokenizer::Words(Vocabulary::new(
            "test",
            (0..n).map(|i| format!("w{i}")).collect(),
        ))
    };
    let path = Path::new("tok/tokenizer.json");
    let past = check_tokenizer_fits(&words(6), path, 5, "wte.weight").unwrap();
    assert_eq!(
        past,
        "tok/tokenizer.json: the tokenizer hands out ids up to 5, but the token table \
         wte.weight has only 5 rows (ids 0 to 4); a token with a higher id has no row and is \
         shown without a vector"
    );
    assert_eq!(check_tokenizer_fits(&words(5), path, 5, "wte.weight"), None);
    let padding = check_tokenizer_fits(&words(3), path, 5, "wte.weight").unwrap();
    assert!(
        padding.contains("rows 3 to 4 are never produced"),
        "{padding}"
    );
}

#[test]
fn the_folders_tokenizer_names_the_rows() {
    let dir = TempDir::new("tokenizer-json");
    write(
        &dir.join("model.safetensors"),
        &gpt2_specs("wte.weight", "wpe.weight"),
    );
    let tokenizer = r#"{"version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [], "normalizer": null, "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": null, "decoder": null, "model": {"type": "WordLevel",
        "vocab": {"fox": 0, "bites": 1, "the": 2, "[UNK]": 3}, "unk_token": "[UNK]"}}"#;
    std::fs::write(dir.join("tokenizer.json"), tokenizer).unwrap();
    let model = open(dir.path()).unwrap();
    let ids: Vec<Option<usize>> = model
        .tokenize("the fox")
        .unwrap()
        .iter()
        .map(|t| t.id)
        .collect();
    assert_eq!(ids, [Some(2), Some(0)]);
    assert!(
        model
            .warnings()
            .iter()
            .any(|w| w.contains("rows 4 to 4 are never produced")),
        "{:?}",
        model.warnings()
    );

    // Six ids for a five-row table (as a published tokenizer's multimodal placeholder can be):
    // the model opens, warns, and the token past the table has no row.
    let bigger = tokenizer.replace(r#""[UNK]": 3}"#, r#""[UNK]": 3, "a": 4, "b": 5}"#);
    std::fs::write(dir.join("tokenizer.json"), bigger).unwrap();
    let model = open(dir.path()).unwrap();
    assert!(
        model
            .warnings()
            .iter()
            .any(|w| w.contains("tokenizer.json: the tokenizer hands out ids up to 5")),
        "{:?}",
        model.warnings()
    );
    let tokens = model.tokenize("the b").unwrap();
    assert_eq!(tokens[1].id, Some(5));
    let lookups = model.embed(&tokens, PositionScheme::Learned);
    assert!(lookups[0].token_vector.is_some());
    assert_eq!(lookups[1].token_vector, None, "id 5 has no row");
    assert_eq!(lookups[1].input_vector, None);
}

#[test]
fn a_missing_tokenizer_file_is_named() {
    let dir = TempDir::new("tokenizer");
    write(
        &dir.join("model.safetensors"),
        &gpt2_specs("wte.weight", "wpe.weight"),
    );
    let options = OpenOptions {
        tokenizer: Some(dir.join("absent.json")),
        ..OpenOptions::default()
    };
    let error = format!(
        "{:#}",
        crate::core::files::open(&FileSource::path(dir.path()), &options)
            .map(|opened| opened.model)
            .unwrap_err()
    );
    assert!(error.contains("absent.json"), "{error}");
}

#[test]
fn non_finite_weights_are_shown_and_warned_about() {
    let dir = TempDir::new("nan");
    write(
        &dir.join("model.safetensors"),
        &[f32_tensor(
            "wte.weight",
            &[2, 3],
            &[1.0, 2.0, 3.0, f32::NAN, f32::INFINITY, 0.5],
        )],
    );
    let model = open(dir.path()).unwrap();
    assert_eq!(model.non_finite_warning(0), None);
    let values = row(&model, 1);
    assert!(values[0].is_nan() && values[1] == f32::INFINITY);
    let warning = model.non_finite_warning(1).unwrap();
    assert!(
        warning.starts_with("row 1 holds 1 NaN value and 1 infinite value"),
        "{warning}"
    );
    assert_eq!(model.non_finite_warning(9), None);
}

#[test]
fn inspection_lists_every_tensor_aligned() {
    let dir = TempDir::new("inspect");
    let mut specs = bert_specs();
    specs.push(Spec {
        name: "bert.embeddings.position_ids",
        dtype: ::safetensors::Dtype::I64,
        shape: vec![1, 2],
        bytes: [0i64, 1].iter().flat_map(|v| v.to_le_bytes()).collect(),
    });
    write(&dir.join("model.safetensors"), &specs);
    let inspection = inspect(&FileSource::path(dir.path())).unwrap();
    assert_eq!(inspection.tensors.len(), 7);
    let position_ids = inspection
        .tensors
        .iter()
        .find(|t| t.name == "bert.embeddings.position_ids")
        .unwrap();
    assert_eq!(
        (position_ids.dtype.as_str(), position_ids.shape.as_slice()),
        ("I64", &[1, 2][..])
    );
    let text = inspection.to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].ends_with(": 7 tensors in 1 file"), "{text}");
    assert_eq!(
        lines[2],
        "name                                          dtype  shape  file"
    );
    assert_eq!(
        lines[3],
        "bert.embeddings.LayerNorm.bias                F32        4  model.safetensors"
    );
    assert!(
        text.contains(
            "bert.embeddings.word_embeddings.weight        F32      3×4  model.safetensors"
        ),
        "{text}"
    );
    assert!(
        text.contains("\ndetected:\n  read from model.safetensors"),
        "{text}"
    );
    assert!(
        text.contains(
            "token table: bert.embeddings.word_embeddings.weight (BERT-style name), 3×4 f32"
        ),
        "{text}"
    );
}

#[test]
fn header_parsing_reads_only_the_header() {
    // A buffer whose data region is all NaN bytes: parsing succeeds without judging them.
    let mut bytes = raw_file(
        r#"{"wte.weight":{"dtype":"F32","shape":[1,2],"data_offsets":[0,8]}}"#,
        &[0xFF; 8],
    );
    let (length, infos) = read_header(Path::new("x.safetensors"), &bytes).unwrap();
    assert_eq!(length + LENGTH_BYTES + 8, bytes.len());
    assert_eq!(infos[0].1.shape, [1, 2]);
    bytes.truncate(3);
    assert!(read_header(Path::new("x.safetensors"), &bytes).is_err());
}
