//! Each family's tables, read as its checkpoints name them, and what detection decides.

use super::*;

#[test]
fn every_float_dtype_reads_exactly() {
    let values = [1.0f32, -2.5, 0.375, 65504.0, -0.000_061_035_156, 3.0];
    for dtype in [
        ::safetensors::Dtype::F32,
        ::safetensors::Dtype::F16,
        ::safetensors::Dtype::BF16,
    ] {
        let dir = TempDir::new("dtype");
        let file = dir.join("weights.safetensors");
        write(&file, &[tensor("wte.weight", dtype, &[2, 3], &values)]);
        let model = open(&file).unwrap();
        let expected: Vec<f32> = values[3..]
            .iter()
            .map(|&v| match dtype {
                ::safetensors::Dtype::BF16 => half::bf16::from_f32(v).to_f32(),
                _ => v,
            })
            .collect();
        assert_eq!(row(&model, 1), expected, "{dtype}");
        assert_eq!(row(&model, 0)[..3], [1.0, -2.5, 0.375], "{dtype}");
        let table_dtype = model.token_table().dtype().unwrap().to_string();
        assert_eq!(table_dtype, dtype.to_string().to_lowercase());
        assert_eq!(model.source(), Some(file.as_path()));
        assert_eq!(model.label(), "weights");
    }
}

#[test]
fn gpt2_names_with_and_without_the_transformer_prefix() {
    for (wte, wpe) in [
        ("wte.weight", "wpe.weight"),
        ("transformer.wte.weight", "transformer.wpe.weight"),
        ("h.transformer.wte.weight", "h.transformer.wpe.weight"),
    ] {
        let dir = TempDir::new("gpt2");
        let mut specs = gpt2_specs(wte, wpe);
        specs.push(f32_tensor("h.0.ln_1.weight", &[3], &[1.0, 1.0, 1.0]));
        write(&dir.join("model.safetensors"), &specs);
        let model = open(dir.path()).unwrap();
        assert_eq!(model.family(), ModelFamily::Gpt2);
        assert_eq!(model.block(), &EmbeddingBlock::Sum);
        assert_eq!(
            (model.rows(), model.dims(), model.context_length()),
            (5, 3, 4)
        );
        let detection = model.detection().join("\n");
        assert!(
            detection.contains(&format!("token table: {wte} (GPT-2 name")),
            "{detection}"
        );
        assert!(detection.contains(&format!("position table: {wpe} (GPT-2), 4×3 f32")));
        assert!(detection.contains("no tokenizer"));
        assert!(model.warnings().is_empty(), "{:?}", model.warnings());
        assert_eq!(model.tokenizer().map(TextTokenizer::name), None);
    }
}

#[test]
fn gpt2_model_embedding_is_token_row_plus_position_row_exactly() {
    let dir = TempDir::new("gpt2-sum");
    write(
        &dir.join("model.safetensors"),
        &[
            f32_tensor("wte.weight", &[2, 2], &[0.1, 0.2, 0.3, 0.7]),
            f32_tensor("wpe.weight", &[2, 2], &[0.01, -0.5, 1e-8, 3.3]),
        ],
    );
    let model = open(dir.path()).unwrap();
    let lookup = lookup_at(&model, 1, 1);
    let expected = vec![0.3f32 + 1e-8, 0.7 + 3.3];
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let got = model.model_embedding(&lookup).unwrap().to_vec();
    assert_eq!(bits(&got), bits(&expected));
    assert_eq!(lookup.model_embedding.unwrap().to_vec(), got);
    // Beyond the two learned positions there is no model embedding.
    assert_eq!(lookup_at(&model, 1, 2).model_embedding, None);
}

#[test]
fn bert_reads_token_types_layer_norm_and_config_eps() {
    let dir = TempDir::new("bert");
    write(&dir.join("model.safetensors"), &bert_specs());
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "bert", "layer_norm_eps": 1e-5}"#,
    )
    .unwrap();
    let model = open(dir.path()).unwrap();
    assert_eq!(model.family(), ModelFamily::Bert);
    assert_eq!(model.position_offset(), 0);
    let EmbeddingBlock::Bert {
        token_type_row,
        norm,
    } = model.block()
    else {
        panic!("expected a BERT block, got {:?}", model.block());
    };
    assert_eq!(token_type_row.to_vec(), [0.25, 0.0, -0.25, 1.0]);
    assert_eq!(norm.eps().to_bits(), 1e-5f32.to_bits());
    assert_eq!(norm.weight().to_vec(), [1.0, 2.0, 0.5, 1.0]);
    let detection = model.detection().join("\n");
    assert!(detection.contains("(BERT-style name)"), "{detection}");
    assert!(
        detection.contains("eps 1e-5 (layer_norm_eps in config.json)"),
        "{detection}"
    );
    assert!(detection.contains("LayerNorm(token + token type + position)"));

    // Token 1 at position 1: (token + type) + position = [1.25, 1, 3.75, 5].
    // Hand computation: mean 2.75, biased variance 2.84375, eps 1e-5,
    // normalised = (x - 2.75) / sqrt(2.84376) = [-0.889498, -1.037747, 0.592998, 1.334246];
    // times weight [1, 2, 0.5, 1] plus bias [0, 0.1, -0.1, 0].
    let got = model.model_embedding(&lookup_at(&model, 1, 1)).unwrap();
    let want = [-0.889_497_616, -1.975_494_437, 0.196_499_205, 1.334_246_424];
    for (g, w) in got.iter().zip(want) {
        assert!((f64::from(*g) - w).abs() < 1e-6, "{got} vs {want:?}");
    }
}

#[test]
fn bert_without_config_uses_the_default_eps_and_old_gamma_beta_names() {
    let dir = TempDir::new("bert-gamma");
    let mut specs = bert_specs();
    specs[3].name = "bert.embeddings.LayerNorm.gamma";
    specs[4].name = "bert.embeddings.LayerNorm.beta";
    write(&dir.join("model.safetensors"), &specs);
    let model = open(dir.path()).unwrap();
    let EmbeddingBlock::Bert { norm, .. } = model.block() else {
        panic!("expected a BERT block");
    };
    assert_eq!(norm.eps().to_bits(), DEFAULT_LAYER_NORM_EPS.to_bits());
    assert!(model.detection().join("\n").contains("LayerNorm.gamma"));
}

#[test]
fn roberta_positions_start_after_the_padding_id() {
    let dir = TempDir::new("roberta");
    write(
        &dir.join("model.safetensors"),
        &[
            counting("roberta.embeddings.word_embeddings.weight", 4, 2, 0.0),
            counting("roberta.embeddings.position_embeddings.weight", 5, 2, 50.0),
            f32_tensor("roberta.embeddings.LayerNorm.weight", &[2], &[1.0, 1.0]),
            f32_tensor("roberta.embeddings.LayerNorm.bias", &[2], &[0.0, 0.0]),
        ],
    );
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "roberta", "pad_token_id": 1}"#,
    )
    .unwrap();
    let model = open(dir.path()).unwrap();
    assert_eq!(model.family(), ModelFamily::Bert);
    assert_eq!(model.family_name(), "roberta");
    assert_eq!(model.position_offset(), 2);
    let detection = model.detection().join("\n");
    assert!(
        detection.contains("under the prefix roberta."),
        "{detection}"
    );
    assert!(detection.contains("no token_type_embeddings"));
    // Position 2 reads row 4, the last; position 3 has no row.
    assert!(lookup_at(&model, 0, 2).model_embedding.is_some());
    assert_eq!(lookup_at(&model, 0, 3).model_embedding, None);
}

#[test]
fn mpnet_counts_positions_from_the_padding_id_and_skips_padding() {
    let dir = TempDir::new("mpnet");
    write(
        &dir.join("model.safetensors"),
        &[
            counting("embeddings.word_embeddings.weight", 4, 2, 0.0),
            counting("embeddings.position_embeddings.weight", 6, 2, 50.0),
        ],
    );
    // MPNet, by model type; its pad id 1 puts the first token at row 2.
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "mpnet", "pad_token_id": 1, "max_position_embeddings": 6}"#,
    )
    .unwrap();
    let model = open(dir.path()).unwrap();
    assert_eq!(model.position_offset(), 2);
    // Read with BERT's layout, but named as its config names it.
    assert_eq!(model.family(), ModelFamily::Bert);
    assert_eq!(model.family_name(), "mpnet");
    let detection = model.detection().join("\n");
    assert!(
        detection.contains("position p reads row p + 2"),
        "{detection}"
    );
    assert!(
        detection.contains("a padding token is not counted and reads row 1"),
        "{detection}"
    );
    // Tokens 3, pad, 0: rows 2, 1 (the padding row), then 3 (the pad is not counted).
    let tokens: Vec<Token> = [3, 1, 0]
        .iter()
        .enumerate()
        .map(|(position, &id)| id_token(id, position))
        .collect();
    assert_eq!(
        model.model_position_rows(&tokens),
        [Some(2), Some(1), Some(3)]
    );
    let lookups = model.embed(&tokens, PositionScheme::None);
    let positions = model.position_table().unwrap();
    let expected = lookups[2].token_vector.as_ref().unwrap() + &positions.row(3).unwrap();
    assert_eq!(lookups[2].model_embedding.as_ref(), Some(&expected));
    assert_eq!(model.model_embedding(&lookups[2]), Some(expected));
    let padding = lookups[1].token_vector.as_ref().unwrap() + &positions.row(1).unwrap();
    assert_eq!(lookups[1].model_embedding, Some(padding));

    // Any model type: 514 rows for pad id 1 (512 + 1 + 1) is the mark of counted positions.
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "new-roberta-kin", "pad_token_id": 1, "max_position_embeddings": 514}"#,
    )
    .unwrap();
    assert_eq!(open(dir.path()).unwrap().position_offset(), 2);
    // BERT: pad id 0 and 512 rows, positions from 0.
    std::fs::write(
        dir.join("config.json"),
        r#"{"model_type": "bert", "pad_token_id": 0, "max_position_embeddings": 512}"#,
    )
    .unwrap();
    let bert = open(dir.path()).unwrap();
    assert_eq!(bert.position_offset(), 0);
    assert_eq!(
        bert.model_position_rows(&tokens),
        [Some(0), Some(1), Some(2)]
    );
}

#[test]
fn llama_names_have_no_position_table() {
    for name in ["model.embed_tokens.weight", "embed_tokens.weight"] {
        let dir = TempDir::new("llama");
        write(
            &dir.join("model.safetensors"),
            &[
                counting(name, 4, 2, 0.0),
                counting("lm_head.weight", 4, 2, 0.0),
            ],
        );
        std::fs::write(
            dir.join("config.json"),
            r#"{"model_type": "llama", "rope_theta": 10000.0}"#,
        )
        .unwrap();
        let model = open(dir.path()).unwrap();
        assert_eq!(model.family(), ModelFamily::Rotary);
        assert_eq!(model.block(), &EmbeddingBlock::TokenOnly);
        assert_eq!(model.position_table().map(Table::rows), None);
        let detection = model.detection().join("\n");
        assert!(
            detection.contains(&format!(
                "no position table: {name} is a Llama-style name; these models rotate \
                 queries and keys inside attention (RoPE) instead"
            )),
            "{detection}"
        );
        assert!(detection.contains("rope_theta 10000.0"), "{detection}");
        let lookup = lookup_at(&model, 3, 7);
        assert_eq!(lookup.model_embedding, lookup.token_vector);
    }
}

#[test]
fn embed_tokens_beside_learned_positions_is_not_called_rotary() {
    let dir = TempDir::new("opt");
    write(
        &dir.join("model.safetensors"),
        &[
            counting("model.decoder.embed_tokens.weight", 4, 2, 0.0),
            counting("model.decoder.embed_positions.weight", 6, 2, 0.0),
        ],
    );
    let model = open(dir.path()).unwrap();
    assert_eq!(model.family(), ModelFamily::Unknown);
    assert!(model.detection().join("\n").contains("OPT and BART"));
}

#[test]
fn detection_decides_where_positions_come_from_as_a_value() {
    let source = |specs: &[Spec], config: Option<&str>| {
        let dir = TempDir::new("position-source");
        write(&dir.join("model.safetensors"), specs);
        if let Some(config) = config {
            std::fs::write(dir.join("config.json"), config).unwrap();
        }
        let checkpoint = Checkpoint::read(dir.path()).unwrap();
        detect(&checkpoint, &OpenOptions::default())
            .unwrap()
            .position_source
    };
    assert!(matches!(
        source(&gpt2_specs("wte.weight", "wpe.weight"), None),
        PositionSource::Learned {
            origin: LearnedOrigin::Gpt2,
            ..
        }
    ));
    assert_eq!(
        source(&[counting("wte.weight", 4, 2, 0.0)], None),
        PositionSource::None(NoPositions::Missing {
            expected: "wpe.weight".to_owned()
        })
    );
    assert_eq!(
        source(
            &[counting("model.embed_tokens.weight", 4, 2, 0.0)],
            Some(r#"{"model_type": "llama", "rope_theta": 500000.0}"#)
        ),
        PositionSource::Rotary {
            rope_theta: Some("500000.0".to_owned())
        }
    );
    assert_eq!(
        source(
            &[counting("model.embed_tokens.weight", 4, 2, 0.0)],
            Some(r#"{"model_type": "t5"}"#)
        ),
        PositionSource::None(NoPositions::InsideLayers {
            model_type: "t5".to_owned()
        })
    );
}

#[test]
fn gemma_scales_token_vectors_by_root_width_in_the_models_dtype() {
    // Expected values printed by PyTorch: `w * torch.tensor(3 ** 0.5, dtype=w.dtype)`.
    let cases: [(::safetensors::Dtype, [f32; 3], [f32; 3], &str); 3] = [
        (
            ::safetensors::Dtype::BF16,
            [65504.0, -0.000_061_035_156, 3.0],
            [113_664.0, -0.000_105_857_85, 5.1875],
            "1.734375",
        ),
        (
            ::safetensors::Dtype::F16,
            [1000.0, -0.000_061_035_156, 3.0],
            [1732.0, -0.000_105_738_64, 5.195_312_5],
            "1.7324219",
        ),
        (
            ::safetensors::Dtype::F32,
            [65504.0, -0.000_061_035_156, 3.0],
            [113_456.26, -0.000_105_715_99, 5.196_152],
            "1.7320508",
        ),
    ];
    for (dtype, values, expected, scale) in cases {
        let dir = TempDir::new("gemma");
        let mut all = vec![1.0, -2.5, 0.375];
        all.extend(values);
        write(
            &dir.join("model.safetensors"),
            &[tensor("model.embed_tokens.weight", dtype, &[2, 3], &all)],
        );
        std::fs::write(dir.join("config.json"), r#"{"model_type": "gemma2"}"#).unwrap();
        let model = open(dir.path()).unwrap();
        let output = lookup_at(&model, 1, 4).model_embedding.unwrap();
        assert_eq!(output.to_vec(), expected, "{dtype}");
        let detection = model.detection().join("\n");
        assert!(
            detection.contains(&format!("token × {scale} (Gemma's √width")),
            "{detection}"
        );
        assert!(model.warnings().iter().all(|w| !w.contains("Gemma")));
    }
}
