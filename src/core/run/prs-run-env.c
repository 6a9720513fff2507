/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-run-env.c: what a run works with (prs-run-env.h), reference counted
 * so that runs of different settings share the services. */
#include "config.h"

#include "prs-run-env.h"

void
prs_run_limits_init (PrsRunLimits *limits)
{
  g_return_if_fail (limits != NULL);

  limits->max_rounds = PRS_RUN_DEFAULT_MAX_ROUNDS;
  limits->max_repeats = PRS_RUN_DEFAULT_MAX_REPEATS;
  limits->history_depth = PRS_RUN_DEFAULT_HISTORY;
  limits->context_tokens = 0;
  limits->max_tokens = 0;
  limits->temperature = -1;
  limits->tool_timeout = PRS_TOOL_CALL_DEFAULT_TIMEOUT;
  limits->callback_timeout = PRS_CALLBACK_DEFAULT_TIMEOUT;
}

static void
env_clear (PrsRunEnv *env)
{
  g_clear_object (&env->store);
  g_clear_object (&env->providers);
  g_clear_object (&env->secrets);
  g_clear_object (&env->registry);
  g_clear_pointer (&env->callback_url, g_free);
  g_clear_object (&env->mcp_hub);
}

PrsRunEnv *
prs_run_env_new (PrsStore            *store,
                 PrsProviders        *providers,
                 PrsSecrets          *secrets,
                 PrsCallbackRegistry *registry,
                 const char          *callback_url,
                 const PrsRunLimits  *limits)
{
  PrsRunEnv *env;

  g_return_val_if_fail (PRS_IS_STORE (store), NULL);
  g_return_val_if_fail (PRS_IS_PROVIDERS (providers), NULL);
  g_return_val_if_fail (secrets == NULL || PRS_IS_SECRETS (secrets), NULL);
  g_return_val_if_fail (PRS_IS_CALLBACK_REGISTRY (registry), NULL);
  g_return_val_if_fail (limits != NULL, NULL);

  env = g_atomic_rc_box_new0 (PrsRunEnv);
  env->store = g_object_ref (store);
  env->providers = g_object_ref (providers);
  env->secrets = secrets != NULL ? g_object_ref (secrets) : NULL;
  env->registry = g_object_ref (registry);
  env->callback_url = g_strdup (callback_url);
  env->limits = *limits;
  if (env->limits.max_rounds == 0)
    env->limits.max_rounds = PRS_RUN_DEFAULT_MAX_ROUNDS;
  if (env->limits.max_repeats == 0)
    env->limits.max_repeats = PRS_RUN_DEFAULT_MAX_REPEATS;
  return env;
}

void
prs_run_env_set_mcp_hub (PrsRunEnv *env,
                         PrsMcpHub *hub)
{
  g_return_if_fail (env != NULL);
  g_return_if_fail (hub == NULL || PRS_IS_MCP_HUB (hub));

  g_set_object (&env->mcp_hub, hub);
}

PrsRunEnv *
prs_run_env_new_with_limits (const PrsRunEnv    *env,
                             const PrsRunLimits *limits)
{
  PrsRunEnv *copy;

  g_return_val_if_fail (env != NULL, NULL);

  copy = prs_run_env_new (env->store, env->providers, env->secrets, env->registry,
                          env->callback_url, limits);
  prs_run_env_set_mcp_hub (copy, env->mcp_hub);
  return copy;
}

PrsRunEnv *
prs_run_env_ref (PrsRunEnv *env)
{
  g_return_val_if_fail (env != NULL, NULL);

  return g_atomic_rc_box_acquire (env);
}

void
prs_run_env_unref (PrsRunEnv *env)
{
  g_return_if_fail (env != NULL);

  g_atomic_rc_box_release_full (env, (GDestroyNotify) env_clear);
}
