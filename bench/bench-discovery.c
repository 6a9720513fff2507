/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-discovery: docs/workflows.md rules over 1,000 recorded workflows (no
 * network), against the baseline of parsing the same JSON alone. Prints
 * one BENCH line, and NOTE lines with every round of both halves: what the
 * thread ran (CPU time), how long it waited for a core, its page faults
 * and CPU migrations, and the steal. The machine's speed moves between
 * invocations and within one; the rounds' own figures say which half met
 * which speed. */
#define _GNU_SOURCE
#include <sched.h>
#include <string.h>
#include <sys/resource.h>

#include "bench-discovery-corpus.h"
#include "bench-thread-clock.h"
#include "prs-checklist.h"
#include "prs-discovery.h"
#include "prs-json.h"

#define N_WORKFLOWS 1000
#define TARGET_RATIO 1.5
/* The first round of each half is a warm-up, printed but left out of the
 * medians: discovery keeps ~4 MB of analyses alive where parsing alone
 * keeps nothing, and the first round pays ~1,000 first-touch page faults
 * for that heap (~15 µs each on this virtual machine: about twice the steady
 * round). glibc trims the heap after a round, so the next one or two fault
 * ~420 pages again: --quick measures seven rounds after the warm-up, where
 * five let three faulting rounds make the median (bench/RESULTS.md) */
#define WARM_UP_ROUNDS 1

/* One round of one half, as the thread saw it */
typedef struct
{
  double wall_ms;
  double cpu_ms;       /* this thread on a core */
  double wait_ms;      /* runnable, another task had the core (schedstat) */
  long   minflt;       /* minor page faults */
  long   nivcsw;       /* involuntary context switches */
  int    cpu_start;
  int    cpu_end;
  double steal;        /* the machine's steal share meanwhile, % */
} Round;

typedef struct
{
  gint64        wall;
  gint64        cpu;
  gint64        wait;
  struct rusage usage;
  int           on;
  guint64       ticks[8];
} Sample;

/* /proc/stat's first line: user nice system idle iowait irq softirq steal */
static void
machine_ticks (guint64 ticks[8])
{
  g_autofree char *stat = NULL;
  const char *p;

  memset (ticks, 0, 8 * sizeof (guint64));
  if (!g_file_get_contents ("/proc/stat", &stat, NULL, NULL) || !g_str_has_prefix (stat, "cpu "))
    return;
  p = stat + 4;
  for (guint i = 0; i < 8; i++)
    {
      char *end = NULL;

      ticks[i] = g_ascii_strtoull (p, &end, 10);
      p = end;
    }
}

/* The clocks are read nearest the measured work: last before it, first
 * after it */
static void
sample_before (Sample *s)
{
  machine_ticks (s->ticks);
  s->on = sched_getcpu ();
  getrusage (RUSAGE_THREAD, &s->usage);
  s->wait = bench_thread_wait_us ();
  s->cpu = bench_thread_cpu_us ();
  s->wall = g_get_monotonic_time ();
}

static void
sample_after (Sample *s)
{
  s->wall = g_get_monotonic_time ();
  s->cpu = bench_thread_cpu_us ();
  s->wait = bench_thread_wait_us ();
  getrusage (RUSAGE_THREAD, &s->usage);
  s->on = sched_getcpu ();
  machine_ticks (s->ticks);
}

static Round
round_between (const Sample *a,
               const Sample *b)
{
  Round r;
  guint64 all = 0;

  r.wall_ms = (b->wall - a->wall) / 1000.0;
  r.cpu_ms = (b->cpu - a->cpu) / 1000.0;
  r.wait_ms = (b->wait - a->wait) / 1000.0;
  r.minflt = b->usage.ru_minflt - a->usage.ru_minflt;
  r.nivcsw = b->usage.ru_nivcsw - a->usage.ru_nivcsw;
  r.cpu_start = a->on;
  r.cpu_end = b->on;
  for (guint i = 0; i < 8; i++)
    all += b->ticks[i] - a->ticks[i];
  r.steal = all > 0 ? 100.0 * (b->ticks[7] - a->ticks[7]) / all : 0;

  return r;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (GArray *samples)
{
  g_array_sort (samples, compare_doubles);

  return g_array_index (samples, double, samples->len / 2);
}

/* Baseline: parse every workflow's JSON (what any client must do). */
static G_GNUC_NO_INLINE void
run_baseline (GPtrArray *texts)
{
  for (guint i = 0; i < texts->len; i++)
    {
      const char *text = g_ptr_array_index (texts, i);
      g_autoptr(JsonNode) node = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);

      g_assert (node != NULL);
    }
}

/* Measured: parse, then every rule of docs/workflows.md and the checklists as
 * the store takes them (JSON text). Like a real discovery, each workflow is
 * analysed (and its checklist drafted) as soon as it is parsed and its JSON
 * dropped; the collisions then need them all. */
static G_GNUC_NO_INLINE void
run_discovery (GPtrArray *texts,
               guint     *out_tools)
{
  g_autoptr(GPtrArray) analyses = g_ptr_array_new_with_free_func ((GDestroyNotify) prs_analysis_free);
  g_autoptr(GPtrArray) tools = NULL;
  g_autoptr(PrsChecklists) checklists = NULL;
  g_autoptr(PrsChecklistDrafts) drafts = prs_checklist_drafts_new ();

  for (guint i = 0; i < texts->len; i++)
    {
      const char *text = g_ptr_array_index (texts, i);
      g_autoptr(JsonNode) node = prs_json_parse_bounded (text, strlen (text), PRS_JSON_DEFAULT_MAX_DEPTH, NULL);
      PrsAnalysis *analysis;

      g_assert (node != NULL);
      analysis = prs_discovery_analyse_workflow (json_node_get_object (node));
      if (analysis != NULL)
        {
          prs_analysis_draft_checklist (analysis, drafts);
          g_ptr_array_add (analyses, analysis);
        }
    }

  prs_discovery_resolve_collisions (analyses, &tools);
  checklists = prs_checklists_new (analyses, drafts);
  *out_tools = tools->len;
}

static double
median_of (const Round *rounds,
           guint        n,
           gsize        offset)
{
  g_autoptr(GArray) values = g_array_sized_new (FALSE, FALSE, sizeof (double), n);

  for (guint i = 0; i < n; i++)
    g_array_append_val (values, G_STRUCT_MEMBER (double, &rounds[i], offset));

  return median (values);
}

/* Every round of both halves, and the ratios that pair each discovery with
 * the baseline just before it (the same seconds, the same machine speed) */
static void
print_rounds (const Round *base,
              const Round *measured,
              guint        n)
{
  /* the warm-up, then the measured rounds */
  g_autoptr(GArray) paired = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) paired_cpu = g_array_new (FALSE, FALSE, sizeof (double));
  double b_cpu = median_of (base + WARM_UP_ROUNDS, n - WARM_UP_ROUNDS, G_STRUCT_OFFSET (Round, cpu_ms));
  double m_cpu = median_of (measured + WARM_UP_ROUNDS, n - WARM_UP_ROUNDS, G_STRUCT_OFFSET (Round, cpu_ms));

  for (guint i = 0; i < n; i++)
    {
      const Round *b = &base[i];
      const Round *m = &measured[i];
      double r = m->wall_ms / b->wall_ms;
      double r_cpu = m->cpu_ms / b->cpu_ms;

      if (i >= WARM_UP_ROUNDS)
        {
          g_array_append_val (paired, r);
          g_array_append_val (paired_cpu, r_cpu);
        }
      g_print ("NOTE discovery-1000 %s %u: baseline %.2f ms (CPU %.2f, waited %.2f, %ld faults, "
               "%ld preempted, cpu %d>%d, steal %.1f%%) discovery %.2f ms (CPU %.2f, waited %.2f, "
               "%ld faults, %ld preempted, cpu %d>%d, steal %.1f%%) ratio %.2f, CPU %.2f\n",
               i < WARM_UP_ROUNDS ? "warm-up" : "round", i < WARM_UP_ROUNDS ? i + 1 : i + 1 - WARM_UP_ROUNDS, b->wall_ms, b->cpu_ms, b->wait_ms, b->minflt, b->nivcsw, b->cpu_start,
               b->cpu_end, b->steal, m->wall_ms, m->cpu_ms, m->wait_ms, m->minflt, m->nivcsw,
               m->cpu_start, m->cpu_end, m->steal, r, r_cpu);
    }
  g_print ("NOTE discovery-1000: median of the per-round ratios %.2f (CPU time %.2f); "
           "ratio of the CPU-time medians %.2f (%.2f / %.2f ms)\n",
           median (paired), median (paired_cpu), m_cpu / b_cpu, m_cpu, b_cpu);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) base = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(GArray) measured = g_array_new (FALSE, FALSE, sizeof (double));
  guint rounds = WARM_UP_ROUNDS + (argc > 1 && g_str_equal (argv[1], "--quick") ? 7 : 15);
  g_autofree Round *base_rounds = g_new0 (Round, rounds);
  g_autofree Round *measured_rounds = g_new0 (Round, rounds);
  guint n_tools = 0;
  double b, m, ratio;

  for (guint i = 0; i < N_WORKFLOWS; i++)
    g_ptr_array_add (texts, bench_discovery_workflow (i));

  for (guint r = 0; r < rounds; r++)
    {
      Sample before, after;

      sample_before (&before);
      run_baseline (texts);
      sample_after (&after);
      base_rounds[r] = round_between (&before, &after);
      if (r >= WARM_UP_ROUNDS)
        g_array_append_val (base, base_rounds[r].wall_ms);

      sample_before (&before);
      run_discovery (texts, &n_tools);
      sample_after (&after);
      measured_rounds[r] = round_between (&before, &after);
      if (r >= WARM_UP_ROUNDS)
        g_array_append_val (measured, measured_rounds[r].wall_ms);
    }

  g_assert (n_tools == N_WORKFLOWS);
  b = median (base);
  m = median (measured);
  ratio = m / b;
  g_print ("BENCH discovery-1000 %.2f ms baseline=%.2f ratio=%.2f target=%.1f %s\n",
           m, b, ratio, TARGET_RATIO, ratio <= TARGET_RATIO ? "PASS" : "FAIL");
  print_rounds (base_rounds, measured_rounds, rounds);

  return 0;
}
