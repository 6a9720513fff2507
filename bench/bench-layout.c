/* SPDX-License-Identifier: GPL-3.0-or-later */
/* bench-layout: prs_layout_parse () (docs/layout.md) over replies of 1, 4 and 16
 * MiB. Writes each reply to DIR/reply-<n>MiB.txt (bench/run times `wc -l`
 * on the same files) and prints "LAYOUT <MiB> <median ms>".
 *
 *   bench-layout DIR [--quick] */
#include <string.h>

#include "prs-layout.h"

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

/* A realistic reply: key-value grids, prose, a list, a URL, some UTF-8 */
static GString *
make_reply (gsize size)
{
  GString *text = g_string_sized_new (size + 512);
  guint i = 0;

  while (text->len < size)
    {
      g_string_append_printf (text,
                              "Order: %u\nCustomer: Zoë Müller\nStatus: shipped\nTracking: https://example.org/t/%u\n\n"
                              "The parcel left the warehouse this morning and should arrive within two days; "
                              "the customer asked for a delivery after 17:00.\n"
                              "- item one\n- item two — the larger one\n\n",
                              i, i);
      i++;
    }
  g_string_truncate (text, size);
  /* Never end inside a UTF-8 sequence */
  while (text->len > 0 && ((guchar) text->str[text->len - 1] & 0xC0) == 0x80)
    g_string_truncate (text, text->len - 1);
  if (text->len > 0 && ((guchar) text->str[text->len - 1] & 0xC0) == 0xC0)
    g_string_truncate (text, text->len - 1);
  return text;
}

int
main (int   argc,
      char *argv[])
{
  static const guint sizes[] = { 1, 4, 16 };
  gboolean quick = argc > 2 && g_str_equal (argv[2], "--quick");

  if (argc < 2)
    {
      g_printerr ("usage: bench-layout DIR [--quick]\n");
      return 2;
    }

  for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      g_autoptr(GString) reply = make_reply ((gsize) sizes[s] << 20);
      g_autofree char *path = g_strdup_printf ("%s/reply-%uMiB.txt", argv[1], sizes[s]);
      g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (double));
      guint rounds = (quick ? 5 : 15) * (sizes[s] == 1 ? 4 : 1);

      if (!g_file_set_contents (path, reply->str, reply->len, NULL))
        return 1;

      for (guint r = 0; r < rounds; r++)
        {
          gint64 start = g_get_monotonic_time ();
          g_autoptr(GPtrArray) blocks = prs_layout_parse (reply->str, reply->len);
          double ms = (g_get_monotonic_time () - start) / 1000.0;

          g_assert (blocks->len > 0);
          g_array_append_val (times, ms);
        }
      g_array_sort (times, compare_doubles);
      g_print ("LAYOUT %u %.3f %" G_GSIZE_FORMAT "\n", sizes[s],
               g_array_index (times, double, times->len / 2), reply->len);
    }

  return 0;
}
