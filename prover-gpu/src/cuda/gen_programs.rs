// Generated with kernels/gen/*.cu by prover-gpu/src/program.rs (`cuda_source`); do not
// edit.

/// The generated quotient kernels: (program fingerprint, kernel, table).
pub const QUOTIENT: &[(u64, &str, &str)] = &[
    (0xe68642944f5c3861, "ks_quotient_eval_ge68642944f5c3861", "DECODE"),
    (0x01ef2afd58522d71, "ks_quotient_eval_g01ef2afd58522d71", "MEMW_R"),
    (0x41076e8002a20e7d, "ks_quotient_eval_g41076e8002a20e7d", "REGISTER"),
    (0x316013ebac282ab0, "ks_quotient_eval_g316013ebac282ab0", "BITWISE"),
    (0xbdffe94aadaed668, "ks_quotient_eval_gbdffe94aadaed668", "LT"),
    (0xac904853c9827544, "ks_quotient_eval_gac904853c9827544", "EQ"),
    (0xead83731e31dd729, "ks_quotient_eval_gead83731e31dd729", "MEMW_A"),
    (0x88b8e6aa86ff6e8d, "ks_quotient_eval_g88b8e6aa86ff6e8d", "MEMW"),
    (0xce810b80361626a6, "ks_quotient_eval_gce810b80361626a6", "PAGE"),
    (0x1c68fc515a2d5609, "ks_quotient_eval_g1c68fc515a2d5609", "PAGE0"),
];

/// The generated logup kernels: (program fingerprint, kernel, table).
pub const LOGUP: &[(u64, &str, &str)] = &[
    (0x5c31ecd358df397a, "ks_logup_eval_g5c31ecd358df397a", "CPU"),
    (0xe68642944f5c3861, "ks_logup_eval_ge68642944f5c3861", "DECODE"),
    (0xf3bca29e927f4e14, "ks_logup_eval_gf3bca29e927f4e14", "MEMW_R"),
    (0x07f5e1c567551f77, "ks_logup_eval_g07f5e1c567551f77", "REGISTER"),
    (0x316013ebac282ab0, "ks_logup_eval_g316013ebac282ab0", "BITWISE"),
    (0x9e3d5243cd5fa74d, "ks_logup_eval_g9e3d5243cd5fa74d", "LT"),
    (0xb6146f1717277e80, "ks_logup_eval_gb6146f1717277e80", "EQ"),
    (0x44d020ee5fe7f271, "ks_logup_eval_g44d020ee5fe7f271", "SHIFT"),
    (0x2a2538dc762459b5, "ks_logup_eval_g2a2538dc762459b5", "MUL"),
    (0x9b009b34aa080525, "ks_logup_eval_g9b009b34aa080525", "DVRM"),
    (0xe1cc4a3024af0ea8, "ks_logup_eval_ge1cc4a3024af0ea8", "LOAD"),
    (0xe27fa6d624b548a4, "ks_logup_eval_ge27fa6d624b548a4", "STORE"),
    (0x8860838be1fd2453, "ks_logup_eval_g8860838be1fd2453", "MEMW_A"),
    (0x325495561e91f47c, "ks_logup_eval_g325495561e91f47c", "MEMW"),
    (0xce0cf241e8817c8d, "ks_logup_eval_gce0cf241e8817c8d", "PAGE"),
    (0xc4a1d4e5c113bf20, "ks_logup_eval_gc4a1d4e5c113bf20", "PAGE0"),
    (0x87bd9b1eb63d26cd, "ks_logup_eval_g87bd9b1eb63d26cd", "ECALL"),
    (0x14324a3c782aab03, "ks_logup_eval_g14324a3c782aab03", "IO"),
];

/// The generated modules and their kernels, for loading.
pub const MODULES: &[(&str, &[&str])] = &[
    ("gen/cpu", &["ks_logup_eval_g5c31ecd358df397a"]),
    ("gen/decode", &["ks_quotient_eval_ge68642944f5c3861", "ks_logup_eval_ge68642944f5c3861"]),
    ("gen/memw_r", &["ks_quotient_eval_g01ef2afd58522d71", "ks_logup_eval_gf3bca29e927f4e14"]),
    ("gen/register", &["ks_quotient_eval_g41076e8002a20e7d", "ks_logup_eval_g07f5e1c567551f77"]),
    ("gen/bitwise", &["ks_quotient_eval_g316013ebac282ab0", "ks_logup_eval_g316013ebac282ab0"]),
    ("gen/lt", &["ks_quotient_eval_gbdffe94aadaed668", "ks_logup_eval_g9e3d5243cd5fa74d"]),
    ("gen/eq", &["ks_quotient_eval_gac904853c9827544", "ks_logup_eval_gb6146f1717277e80"]),
    ("gen/shift", &["ks_logup_eval_g44d020ee5fe7f271"]),
    ("gen/mul", &["ks_logup_eval_g2a2538dc762459b5"]),
    ("gen/dvrm", &["ks_logup_eval_g9b009b34aa080525"]),
    ("gen/load", &["ks_logup_eval_ge1cc4a3024af0ea8"]),
    ("gen/store", &["ks_logup_eval_ge27fa6d624b548a4"]),
    ("gen/memw_a", &["ks_quotient_eval_gead83731e31dd729", "ks_logup_eval_g8860838be1fd2453"]),
    ("gen/memw", &["ks_quotient_eval_g88b8e6aa86ff6e8d", "ks_logup_eval_g325495561e91f47c"]),
    ("gen/page", &["ks_quotient_eval_gce810b80361626a6", "ks_logup_eval_gce0cf241e8817c8d"]),
    ("gen/page0", &["ks_quotient_eval_g1c68fc515a2d5609", "ks_logup_eval_gc4a1d4e5c113bf20"]),
    ("gen/ecall", &["ks_logup_eval_g87bd9b1eb63d26cd"]),
    ("gen/io", &["ks_logup_eval_g14324a3c782aab03"]),
];
