/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "lb-crew"

#include "lb-crew.h"

/* Helper threads of a pass ("crew"). They come from GLib's shared thread pool rather than
 * g_thread_new(): starting and joining a thread costs ~45 µs here (1 000 g_thread_new + join,
 * measured 2026-11-30), a parked pool thread wakes in a few µs, and a 3×3 pass over 1.4 Mpx
 * takes ~0.6 ms. The pool has no thread limit, so a job never queues behind another pass's.
 * A job the pool has not started by the time the calling thread ran out of work is dropped
 * rather than waited for (all of its work was taken by then), so a helper scheduled late
 * costs the pass nothing. */

enum { JOB_QUEUED, JOB_RUNNING, JOB_DROPPED };

typedef struct {
  GMutex lock;
  GCond cond;
  guint pending;          /* jobs neither dropped nor finished, under @lock */
} Crew;

typedef struct {
  gint state;             /* atomic: JOB_* */
  Crew *crew;             /* valid while the job is queued or running */
  GThreadFunc func;
  gpointer data;
} CrewJob;

static void
crew_done (Crew *crew)
{
  g_mutex_lock (&crew->lock);
  if (--crew->pending == 0)
    g_cond_signal (&crew->cond);
  g_mutex_unlock (&crew->lock);
}

static void (*thread_init) (void);

void
_lb_crew_set_thread_init (void (*func) (void))
{
  thread_init = func;
}

static void
crew_job_run (gpointer job_data,
              gpointer pool_data)
{
  CrewJob *job = job_data;
  Crew *crew;

  (void) pool_data;
  if (thread_init != NULL)
    thread_init ();
  /* Dropped: the pass is over and forgot this job; only its memory is left to free. */
  if (!g_atomic_int_compare_and_exchange (&job->state, JOB_QUEUED, JOB_RUNNING))
    {
      g_free (job);
      return;
    }
  crew = job->crew;
  job->func (job->data);
  /* A started job belongs to crew_run(), which frees it once the crew is done. */
  crew_done (crew);
}

static GThreadPool *
crew_pool (void)
{
  static GThreadPool *pool;

  if (g_once_init_enter (&pool))
    {
      GThreadPool *p = g_thread_pool_new (crew_job_run, NULL, -1, FALSE, NULL);

      g_once_init_leave (&pool, p);
    }
  return pool;
}

void
lb_crew_run (guint       n,
             GThreadFunc func,
             gpointer    items,
             gsize       item_size)
{
  Crew crew = { .pending = n > 0 ? n - 1 : 0 };
  g_autofree CrewJob **jobs = g_new0 (CrewJob *, MAX (n, 1));

  g_mutex_init (&crew.lock);
  g_cond_init (&crew.cond);
  for (guint t = 1; t < n; t++)
    {
      CrewJob *job = g_new0 (CrewJob, 1);

      job->state = JOB_QUEUED;
      job->crew = &crew;
      job->func = func;
      job->data = (guint8 *) items + t * item_size;
      jobs[t] = job;
      /* On FALSE (no thread could be started) the job stays queued: dropped below if no
       * thread has taken it by then. */
      (void) g_thread_pool_push (crew_pool (), job, NULL);
    }
  if (n > 0)
    func (items);
  for (guint t = 1; t < n; t++)
    if (g_atomic_int_compare_and_exchange (&jobs[t]->state, JOB_QUEUED, JOB_DROPPED))
      {
        jobs[t] = NULL;    /* the pool frees it when it reaches it */
        crew_done (&crew);
      }
  g_mutex_lock (&crew.lock);
  while (crew.pending > 0)
    g_cond_wait (&crew.cond, &crew.lock);
  g_mutex_unlock (&crew.lock);
  for (guint t = 1; t < n; t++)
    g_free (jobs[t]);      /* started, and finished by now */
  g_mutex_clear (&crew.lock);
  g_cond_clear (&crew.cond);
}
