"""Functions a workbench statement may call, named as DuckDB's own parser names them.

This is an allow-list: a function that is not here is refused, including every
function that reads files or reaches a source (``read_csv``, ``postgres_query``,
``sqlite_scan``, ``query``, ``glob``...), every catalog or settings function
(``duckdb_tables``, ``current_setting``, ``getvariable``...) and everything an
extension adds later. It is checked against DuckDB's parse of the final
statement (see :mod:`workbench_app.engine.duckdb_parse_check`), so the names are
DuckDB's, operators included (``~~`` is LIKE, ``list_value`` is ``[...]``).

The list is generous on purpose: analysts need the usual math, text, date,
aggregate, window, list/struct/map and JSON-extraction functions.
"""

from __future__ import annotations

# Operators, and the functions DuckDB's parser itself produces for syntax
# (brackets, struct literals, LIKE, EXTRACT, AT TIME ZONE, slicing...).
OPERATORS = frozenset(
    """
    + - * / // % ** ^ & | << >> ~ || && @ <-> <=> <@ @> ^@ ->>
    ~~ !~~ ~~* !~~* ~~~ !__postfix
    list_value struct_pack row array_extract list_extract array_slice list_slice
    struct_extract struct_extract_at date_part timezone
    like_escape not_like_escape ilike_escape not_ilike_escape regexp_full_match
    add subtract multiply divide mod
    """.split()
)

MATH = frozenset(
    """
    abs acos acosh asin asinh atan atan2 atanh bit_count cbrt ceil ceiling cos cosh cot degrees
    even exp factorial floor gamma gcd greatest greatest_common_divisor isfinite isinf isnan lcm
    least least_common_multiple lgamma ln log log10 log2 nextafter pi pow power radians random
    round round_even roundbankers sign signbit sin sinh sqrt tan tanh trunc xor fdiv fmod
    equi_width_bins bar
    """.split()
)

TEXT = frozenset(
    """
    ascii bit_length char_length character_length chr concat concat_ws contains
    damerau_levenshtein editdist3 ends_with format printf hamming instr jaccard jaro_similarity
    jaro_winkler_similarity lcase left left_grapheme len length length_grapheme levenshtein
    lower lpad ltrim md5 md5_number md5_number_lower md5_number_upper mismatches nfc_normalize
    octet_length ord position prefix regexp_escape regexp_extract regexp_extract_all
    regexp_matches regexp_replace regexp_split_to_array repeat replace reverse right
    right_grapheme rpad rtrim sha1 sha256 hash split split_part str_split str_split_regex
    string_split string_split_regex string_to_array strip_accents strlen strpos substr
    substring substring_grapheme suffix starts_with to_base64 from_base64 base64 translate
    trim ucase unicode upper url_decode url_encode hex unhex bin unbin to_hex from_hex
    to_binary from_binary to_base encode decode format_bytes formatReadableSize
    formatReadableDecimalSize parse_formatted_bytes array_to_string
    uuid gen_random_uuid uuidv4 uuidv7 uuid_extract_timestamp uuid_extract_version
    typeof nullif
    """.split()
)

DATE_TIME = frozenset(
    """
    age century current_date current_localtime current_localtimestamp date_add date_diff
    date_sub date_trunc datediff datepart datesub datetrunc day dayname dayofmonth dayofweek
    dayofyear days_in_month decade epoch epoch_ms epoch_ns epoch_us era get_current_time
    get_current_timestamp hour isodow isoyear julian last_day make_date make_time
    make_timestamp make_timestamp_ms make_timestamp_ns make_timestamptz microsecond millennium
    millisecond minute month monthname nanosecond normalized_interval now quarter second
    strftime strptime time_bucket timezone_hour timezone_minute to_centuries to_days
    to_decades to_hours to_microseconds to_millennia to_milliseconds to_minutes to_months
    to_quarters to_seconds to_timestamp to_weeks to_years today transaction_timestamp
    try_strptime week weekday weekofyear year yearweek ago
    """.split()
)

AGGREGATE = frozenset(
    """
    any_value approx_count_distinct approx_quantile approx_top_k arbitrary arg_max
    arg_max_null arg_max_nulls_last arg_min arg_min_null arg_min_nulls_last argmax argmin
    array_agg avg bit_and bit_or bit_xor bitstring_agg bool_and bool_or corr count count_if
    count_star countif covar_pop covar_samp entropy favg first fsum geomean geometric_mean
    group_concat histogram histogram_exact kahan_sum kurtosis kurtosis_pop last list listagg
    mad max max_by mean median min min_by mode product quantile quantile_cont quantile_disc
    regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy
    reservoir_quantile sem skewness stddev stddev_pop stddev_samp string_agg sum
    sum_no_overflow sumkahan var_pop var_samp variance wavg weighted_avg
    """.split()
)

WINDOW = frozenset(
    """
    cume_dist dense_rank fill first_value lag last_value lead nth_value ntile percent_rank rank
    rank_dense row_number
    """.split()
)

LIST_STRUCT_MAP = frozenset(
    """
    aggregate apply array_aggr array_aggregate array_append array_apply array_cat array_concat
    array_contains array_cosine_distance array_cosine_similarity array_cross_product
    array_distance array_distinct array_dot_product array_filter array_grade_up array_has
    array_has_all array_has_any array_indexof array_inner_product array_intersect array_length
    array_negative_dot_product array_negative_inner_product array_pop_back array_pop_front
    array_position array_prepend array_push_back array_push_front array_reduce array_resize
    array_reverse array_reverse_sort array_select array_sort array_transform array_unique
    array_value array_where array_zip cardinality element_at filter flatten generate_series
    grade_up list_aggr list_aggregate list_any_value list_append list_apply list_approx_count_distinct
    list_avg list_bit_and list_bit_or list_bit_xor list_bool_and list_bool_or list_cat
    list_concat list_contains list_cosine_distance list_cosine_similarity list_count
    list_distance list_distinct list_dot_product list_element list_entropy list_filter
    list_first list_grade_up list_has list_has_all list_has_any list_histogram list_indexof
    list_inner_product list_intersect list_kurtosis list_kurtosis_pop list_last list_mad
    list_max list_median list_min list_mode list_negative_dot_product
    list_negative_inner_product list_pack list_position list_prepend list_product list_reduce
    list_resize list_reverse list_reverse_sort list_select list_sem list_skewness list_sort
    list_stddev_pop list_stddev_samp list_string_agg list_sum list_transform list_unique
    list_var_pop list_var_samp list_where list_zip map map_concat map_contains
    map_contains_entry map_contains_value map_entries map_extract map_extract_value
    map_from_entries map_keys map_values range reduce struct_concat struct_contains struct_has
    struct_indexof struct_insert struct_keys struct_position struct_update struct_values
    union_extract union_tag union_value unnest
    """.split()
)

JSON = frozenset(
    """
    json json_array json_array_length json_contains json_exists json_extract json_extract_path
    json_extract_path_text json_extract_string json_keys json_merge_patch json_object
    json_pretty json_quote json_structure json_transform json_transform_strict json_type
    json_valid json_value to_json from_json from_json_strict array_to_json row_to_json
    json_group_array json_group_object json_group_structure
    """.split()
)

#: Scalar, aggregate and window functions a statement may call.
ALLOWED_FUNCTIONS = OPERATORS | MATH | TEXT | DATE_TIME | AGGREGATE | WINDOW | LIST_STRUCT_MAP | JSON

#: Functions allowed in FROM: they only generate rows from values.
ALLOWED_TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest", "json_each", "json_tree"})


def is_allowed_function(name: str) -> bool:
    """Whether a scalar/aggregate/window function (DuckDB name) may be called."""
    return name in ALLOWED_FUNCTIONS or name.lower() in ALLOWED_FUNCTIONS


def is_allowed_table_function(name: str) -> bool:
    """Whether a table function (DuckDB name) may appear in FROM."""
    return name.lower() in ALLOWED_TABLE_FUNCTIONS
