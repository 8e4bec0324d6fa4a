/*
 * culprit/deprecated.h: the public functions' names before issue 24's rename, kept for
 * one minor version (0.1.x -> 0.2).
 *
 * Issue 24 made every public function's prefix name its header (docs/conventions.md:
 * culprit_run_new is now culprit_history_run_new, culprit_welford_add
 * culprit_stats_welford_add, ...). A program written against the old names still
 * compiles: each old name is a macro for the new one, as libgit2's deprecated.h keeps
 * its old names. Define CULPRIT_NO_DEPRECATED before including any culprit header (as
 * culprit's own build does) to get only the new names, as libgit2's GIT_DEPRECATE_HARD.
 * This header is removed in 0.2.0 (docs/api-stability.md).
 *
 * Generated from the rename's sed script (one line per renamed function); do not
 * edit by hand.
 */
#ifndef CULPRIT_DEPRECATED_H
#define CULPRIT_DEPRECATED_H

#ifndef CULPRIT_NO_DEPRECATED

#define culprit_confirm_options_init       culprit_bisect_confirm_options_init
#define culprit_fanout_record_dispose      culprit_bisect_fanout_record_dispose
#define culprit_fanout_state_dispose       culprit_bisect_fanout_state_dispose
#define culprit_investigate_options_init   culprit_bisect_investigate_options_init
#define culprit_investigation_of           culprit_bisect_investigation_of
#define culprit_investigation_status_name  culprit_bisect_investigation_status_name
#define culprit_investigations_free        culprit_bisect_investigations_free
#define culprit_assignments_adopt          culprit_detect_assignments_adopt
#define culprit_assignments_count          culprit_detect_assignments_count
#define culprit_assignments_decode         culprit_detect_assignments_decode
#define culprit_assignments_encode         culprit_detect_assignments_encode
#define culprit_assignments_entry          culprit_detect_assignments_entry
#define culprit_assignments_free           culprit_detect_assignments_free
#define culprit_assignments_get            culprit_detect_assignments_get
#define culprit_assignments_load           culprit_detect_assignments_load
#define culprit_assignments_save           culprit_detect_assignments_save
#define culprit_assignments_set            culprit_detect_assignments_set
#define culprit_assignments_unset          culprit_detect_assignments_unset
#define culprit_baseline_dispose           culprit_detect_baseline_dispose
#define culprit_categories_classify        culprit_detect_categories_classify
#define culprit_categories_default         culprit_detect_categories_default
#define culprit_categories_find            culprit_detect_categories_find
#define culprit_categories_free            culprit_detect_categories_free
#define culprit_categories_is_fastest      culprit_detect_categories_is_fastest
#define culprit_category_name_check        culprit_detect_category_name_check
#define culprit_check_commit               culprit_detect_check_commit
#define culprit_check_counters_flagged     culprit_detect_check_counters_flagged
#define culprit_check_counts_as            culprit_detect_check_counts_as
#define culprit_check_flagged              culprit_detect_check_flagged
#define culprit_check_load                 culprit_detect_check_load
#define culprit_check_load_flags           culprit_detect_check_load_flags
#define culprit_check_options_init         culprit_detect_check_options_init
#define culprit_check_result_dispose       culprit_detect_check_result_dispose
#define culprit_check_wants_more           culprit_detect_check_wants_more
#define culprit_check_worst                culprit_detect_check_worst
#define culprit_clusters_aa_dispose        culprit_detect_clusters_aa_dispose
#define culprit_clusters_aa_errors         culprit_detect_clusters_aa_errors
#define culprit_clusters_options_init      culprit_detect_clusters_options_init
#define culprit_clusters_verdict_dispose   culprit_detect_clusters_verdict_dispose
#define culprit_counter_table_dispose      culprit_detect_counter_table_dispose
#define culprit_counter_table_find         culprit_detect_counter_table_find
#define culprit_counter_table_from_results culprit_detect_counter_table_from_results
#define culprit_counter_table_init         culprit_detect_counter_table_init
#define culprit_detector_name              culprit_detect_detector_name
#define culprit_detector_parse             culprit_detect_detector_parse
#define culprit_evidence_name              culprit_detect_evidence_name
#define culprit_level_name                 culprit_detect_level_name
#define culprit_parse_duration_ns          culprit_detect_parse_duration_ns
#define culprit_project_categories         culprit_detect_project_categories
#define culprit_project_command            culprit_detect_project_command
#define culprit_project_default            culprit_detect_project_default
#define culprit_project_fail_on            culprit_detect_project_fail_on
#define culprit_project_free               culprit_detect_project_free
#define culprit_project_history_dir        culprit_detect_project_history_dir
#define culprit_project_load               culprit_detect_project_load
#define culprit_project_parse              culprit_detect_project_parse
#define culprit_project_test_category      culprit_detect_project_test_category
#define culprit_rules_confidence_change    culprit_detect_rules_confidence_change
#define culprit_rules_level                culprit_detect_rules_level
#define culprit_rules_mine                 culprit_detect_rules_mine
#define culprit_rules_options_init         culprit_detect_rules_options_init
#define culprit_rules_verdict_dispose      culprit_detect_rules_verdict_dispose
#define culprit_verdict_compared           culprit_detect_verdict_compared
#define culprit_verdict_confirmed          culprit_detect_verdict_confirmed
#define culprit_verdict_dispose            culprit_detect_verdict_dispose
#define culprit_verdict_name               culprit_detect_verdict_name
#define culprit_run_add_test               culprit_history_run_add_test
#define culprit_run_find_test              culprit_history_run_find_test
#define culprit_run_free                   culprit_history_run_free
#define culprit_run_machine_class          culprit_history_run_machine_class
#define culprit_run_new                    culprit_history_run_new
#define culprit_status_name                culprit_history_status_name
#define culprit_test_result_add_series     culprit_history_test_result_add_series
#define culprit_test_result_copy_summary   culprit_history_test_result_copy_summary
#define culprit_test_result_line           culprit_history_test_result_line
#define culprit_test_result_measured       culprit_history_test_result_measured
#define culprit_test_result_series         culprit_history_test_result_series
#define culprit_clock_cpu_ns               culprit_measure_clock_cpu_ns
#define culprit_clock_monotonic_ns         culprit_measure_clock_monotonic_ns
#define culprit_clock_overhead_ns          culprit_measure_clock_overhead_ns
#define culprit_counter_name               culprit_measure_counter_name
#define culprit_counters_available         culprit_measure_counters_available
#define culprit_counters_free              culprit_measure_counters_free
#define culprit_counters_open              culprit_measure_counters_open
#define culprit_counters_read              culprit_measure_counters_read
#define culprit_region_begin               culprit_measure_region_begin
#define culprit_region_end                 culprit_measure_region_end
#define culprit_samples_free               culprit_measure_samples_free
#define culprit_stop_reason_name           culprit_measure_stop_reason_name
#define culprit_settings_dispose           culprit_runner_settings_dispose
#define culprit_settings_resolve           culprit_runner_settings_resolve
#define culprit_dendrogram_dispose         culprit_stats_dendrogram_dispose
#define culprit_ols_dispose                culprit_stats_ols_dispose
#define culprit_welford_add                culprit_stats_welford_add
#define culprit_welford_ci_halfwidth       culprit_stats_welford_ci_halfwidth
#define culprit_welford_from_summary       culprit_stats_welford_from_summary
#define culprit_welford_init               culprit_stats_welford_init
#define culprit_welford_merge              culprit_stats_welford_merge
#define culprit_welford_sd                 culprit_stats_welford_sd
#define culprit_welford_variance           culprit_stats_welford_variance

#endif /* CULPRIT_NO_DEPRECATED */

#endif /* CULPRIT_DEPRECATED_H */
