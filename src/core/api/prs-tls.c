/* SPDX-License-Identifier: GPL-3.0-or-later */
/* prs-tls.c: first-run key and self-signed certificate for the API server,
 * made with GnuTLS, renewed when fewer than 30 days remain. */
#include "config.h"

#include <glib/gi18n-lib.h>

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>
#include <gnutls/gnutls.h>
#include <gnutls/crypto.h>
#include <gnutls/x509.h>

#include "prs-error.h"
#include "prs-paths.h"
#include "prs-tls.h"

#define VALIDITY_DAYS      825
#define RENEW_BEFORE_DAYS  30
#define SECONDS_PER_DAY    (24 * 60 * 60)
/* far more than a key or certificate in PEM */
#define MAX_PEM_SIZE       (256 * 1024)

static const char * const san_dns_names[] = {
  "localhost",
  "host.containers.internal",
  "host.docker.internal",
};

static gboolean
set_gnutls_error (GError     **error,
                  int          ret,
                  const char  *what)
{
  g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED,
               _("Could not make the TLS certificate (%s): %s"),
               what, gnutls_strerror (ret));
  return FALSE;
}

/* TRUE when @pem is a certificate valid for at least RENEW_BEFORE_DAYS
 * more days. */
static gboolean
certificate_is_current (const char *pem,
                        gsize       len)
{
  gnutls_x509_crt_t crt = NULL;
  gnutls_datum_t datum;
  time_t expires;
  gboolean current = FALSE;

  if (gnutls_x509_crt_init (&crt) < 0)
    return FALSE;

  datum.data = (unsigned char *) pem;
  datum.size = (unsigned int) len;
  if (gnutls_x509_crt_import (crt, &datum, GNUTLS_X509_FMT_PEM) >= 0)
    {
      expires = gnutls_x509_crt_get_expiration_time (crt);
      current = (expires != (time_t) -1 &&
                 expires - time (NULL) > (time_t) RENEW_BEFORE_DAYS * SECONDS_PER_DAY);
    }

  gnutls_x509_crt_deinit (crt);
  return current;
}

/* The file's contents, NULL when it does not exist; FALSE when it may not
 * be used (a link, another user's file: see prs_paths_read_file). */
static gboolean
read_material (const char  *path,
               char       **out_pem,
               gsize       *out_len,
               GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  *out_pem = NULL;
  if (prs_paths_read_file (path, MAX_PEM_SIZE, out_pem, out_len, &local_error))
    return TRUE;
  if (g_error_matches (local_error, G_FILE_ERROR, G_FILE_ERROR_NOENT))
    return TRUE;

  g_propagate_error (error, g_steal_pointer (&local_error));
  return FALSE;
}

/* Serial, validity, name, key, and what the certificate may be used for. */
static gboolean
set_certificate_fields (gnutls_x509_crt_t       crt,
                        gnutls_x509_privkey_t   key,
                        GError                **error)
{
  unsigned char serial[16];
  time_t now = time (NULL);
  const char *cn = "Prosponsive local API";
  int ret;

  /* A positive serial: clear the top bit */
  if ((ret = gnutls_rnd (GNUTLS_RND_NONCE, serial, sizeof serial)) < 0)
    {
      set_gnutls_error (error, ret, "serial");
      return FALSE;
    }
  serial[0] &= 0x7f;
  serial[0] |= 0x01;

  if ((ret = gnutls_x509_crt_set_version (crt, 3)) < 0 ||
      (ret = gnutls_x509_crt_set_serial (crt, serial, sizeof serial)) < 0 ||
      (ret = gnutls_x509_crt_set_activation_time (crt, now - SECONDS_PER_DAY)) < 0 ||
      (ret = gnutls_x509_crt_set_expiration_time (crt, now + (time_t) VALIDITY_DAYS * SECONDS_PER_DAY)) < 0 ||
      (ret = gnutls_x509_crt_set_dn_by_oid (crt, GNUTLS_OID_X520_COMMON_NAME, 0,
                                            cn, strlen (cn))) < 0 ||
      (ret = gnutls_x509_crt_set_key (crt, key)) < 0 ||
      /* Self-signed: the certificate is its own trust anchor (NODE_EXTRA_CA_CERTS) */
      (ret = gnutls_x509_crt_set_basic_constraints (crt, 1, 0)) < 0 ||
      (ret = gnutls_x509_crt_set_key_usage (crt, GNUTLS_KEY_DIGITAL_SIGNATURE |
                                                 GNUTLS_KEY_KEY_CERT_SIGN)) < 0 ||
      (ret = gnutls_x509_crt_set_key_purpose_oid (crt, GNUTLS_KP_TLS_WWW_SERVER, 0)) < 0)
    {
      set_gnutls_error (error, ret, "fields");
      return FALSE;
    }

  return TRUE;
}

/* The names the API answers on: san_dns_names, 127.0.0.1 and ::1. */
static gboolean
add_subject_alt_names (gnutls_x509_crt_t   crt,
                       GError            **error)
{
  struct in_addr ip4;
  struct in6_addr ip6;
  int ret;

  for (gsize i = 0; i < G_N_ELEMENTS (san_dns_names); i++)
    {
      ret = gnutls_x509_crt_set_subject_alt_name (crt, GNUTLS_SAN_DNSNAME,
                                                  san_dns_names[i],
                                                  strlen (san_dns_names[i]),
                                                  GNUTLS_FSAN_APPEND);
      if (ret < 0)
        {
          set_gnutls_error (error, ret, "subject alternative name");
          return FALSE;
        }
    }

  inet_pton (AF_INET, "127.0.0.1", &ip4);
  inet_pton (AF_INET6, "::1", &ip6);
  if ((ret = gnutls_x509_crt_set_subject_alt_name (crt, GNUTLS_SAN_IPADDRESS, &ip4,
                                                   sizeof ip4, GNUTLS_FSAN_APPEND)) < 0 ||
      (ret = gnutls_x509_crt_set_subject_alt_name (crt, GNUTLS_SAN_IPADDRESS, &ip6,
                                                   sizeof ip6, GNUTLS_FSAN_APPEND)) < 0)
    {
      set_gnutls_error (error, ret, "subject alternative address");
      return FALSE;
    }

  return TRUE;
}

/* Signs @crt with its own @key and writes both as PEM; the key's buffer is
 * wiped before it is freed. */
static gboolean
sign_and_export (gnutls_x509_crt_t       crt,
                 gnutls_x509_privkey_t   key,
                 char                  **out_cert_pem,
                 char                  **out_key_pem,
                 GError                **error)
{
  gnutls_datum_t cert_datum = { NULL, 0 };
  gnutls_datum_t key_datum = { NULL, 0 };
  unsigned char keyid[64];
  size_t keyid_size = sizeof keyid;
  gboolean ok = FALSE;
  int ret;

  if ((ret = gnutls_x509_crt_get_key_id (crt, 0, keyid, &keyid_size)) < 0 ||
      (ret = gnutls_x509_crt_set_subject_key_id (crt, keyid, keyid_size)) < 0 ||
      (ret = gnutls_x509_crt_sign2 (crt, crt, key, GNUTLS_DIG_SHA256, 0)) < 0 ||
      (ret = gnutls_x509_crt_export2 (crt, GNUTLS_X509_FMT_PEM, &cert_datum)) < 0 ||
      (ret = gnutls_x509_privkey_export2_pkcs8 (key, GNUTLS_X509_FMT_PEM, NULL,
                                                GNUTLS_PKCS_PLAIN, &key_datum)) < 0)
    {
      set_gnutls_error (error, ret, "signature");
    }
  else
    {
      *out_cert_pem = g_strndup ((const char *) cert_datum.data, cert_datum.size);
      *out_key_pem = g_strndup ((const char *) key_datum.data, key_datum.size);
      ok = TRUE;
    }

  if (key_datum.data != NULL)
    {
      gnutls_memset (key_datum.data, 0, key_datum.size);
      gnutls_free (key_datum.data);
    }
  gnutls_free (cert_datum.data);
  return ok;
}

static gboolean
generate_material (char   **out_cert_pem,
                   char   **out_key_pem,
                   GError **error)
{
  gnutls_x509_privkey_t key = NULL;
  gnutls_x509_crt_t crt = NULL;
  gboolean ok = FALSE;
  int ret;

  if ((ret = gnutls_x509_privkey_init (&key)) < 0 ||
      (ret = gnutls_x509_privkey_generate2 (key, GNUTLS_PK_ECDSA,
                                            GNUTLS_CURVE_TO_BITS (GNUTLS_ECC_CURVE_SECP256R1),
                                            0, NULL, 0)) < 0)
    {
      set_gnutls_error (error, ret, "key");
      goto out;
    }

  if ((ret = gnutls_x509_crt_init (&crt)) < 0)
    {
      set_gnutls_error (error, ret, "init");
      goto out;
    }

  ok = set_certificate_fields (crt, key, error) &&
       add_subject_alt_names (crt, error) &&
       sign_and_export (crt, key, out_cert_pem, out_key_pem, error);

out:
  if (crt != NULL)
    gnutls_x509_crt_deinit (crt);
  if (key != NULL)
    gnutls_x509_privkey_deinit (key);
  return ok;
}

static gboolean
write_private_file (const char  *path,
                    const char  *contents,
                    GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  /* Durable: a certificate lost to a power cut would be made anew at the
   * next start, and every workflow that trusts this one would fail */
  if (!g_file_set_contents_full (path, contents, -1,
                                 G_FILE_SET_CONTENTS_CONSISTENT | G_FILE_SET_CONTENTS_DURABLE, 0600,
                                 &local_error))
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED,
                   _("Could not write “%s”: %s"), path, local_error->message);
      return FALSE;
    }

  return TRUE;
}

GTlsCertificate *
prs_tls_ensure_certificate (const char  *data_dir,
                            GError     **error)
{
  g_autofree char *cert_path = NULL;
  g_autofree char *key_path = NULL;
  g_autofree char *cert_pem = NULL;
  g_autofree char *key_pem = NULL;
  g_autofree char *both = NULL;
  gsize cert_len = 0;
  gsize key_len = 0;
  g_autoptr(GError) local_error = NULL;
  GTlsCertificate *certificate;

  g_return_val_if_fail (data_dir != NULL, NULL);

  cert_path = g_build_filename (data_dir, PRS_TLS_CERT_FILE, NULL);
  key_path = g_build_filename (data_dir, PRS_TLS_KEY_FILE, NULL);

  if (!read_material (key_path, &key_pem, &key_len, error) ||
      !read_material (cert_path, &cert_pem, &cert_len, error))
    {
      if (key_pem != NULL)
        memset (key_pem, 0, key_len);
      return NULL;
    }

  if (key_pem == NULL || cert_pem == NULL || !certificate_is_current (cert_pem, cert_len))
    {
      if (key_pem != NULL)
        memset (key_pem, 0, key_len);
      g_clear_pointer (&key_pem, g_free);
      g_clear_pointer (&cert_pem, g_free);
      if (!generate_material (&cert_pem, &key_pem, error))
        return NULL;
      /* The key first: a certificate never exists without its key */
      if (!write_private_file (key_path, key_pem, error) ||
          !write_private_file (cert_path, cert_pem, error))
        return NULL;
      g_message ("Made a new TLS certificate for the local API");
    }

  both = g_strconcat (cert_pem, "\n", key_pem, NULL);
  if (key_pem != NULL)
    memset (key_pem, 0, strlen (key_pem));

  certificate = g_tls_certificate_new_from_pem (both, -1, &local_error);
  memset (both, 0, strlen (both));

  if (certificate == NULL)
    {
      g_set_error (error, PRS_ERROR, PRS_ERROR_FAILED,
                   _("Could not load the TLS certificate: %s"), local_error->message);
      return NULL;
    }

  return certificate;
}

char *
prs_tls_dup_fingerprint (GTlsCertificate *certificate)
{
  g_autoptr(GByteArray) der = NULL;
  guint8 digest[32];
  gsize digest_len = sizeof digest;
  g_autoptr(GChecksum) checksum = NULL;
  GString *out;

  g_return_val_if_fail (G_IS_TLS_CERTIFICATE (certificate), NULL);

  g_object_get (certificate, "certificate", &der, NULL);
  if (der == NULL)
    return NULL;

  checksum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (checksum, der->data, der->len);
  g_checksum_get_digest (checksum, digest, &digest_len);

  out = g_string_sized_new (digest_len * 3);
  for (gsize i = 0; i < digest_len; i++)
    g_string_append_printf (out, i == 0 ? "%02X" : ":%02X", digest[i]);

  return g_string_free (out, FALSE);
}

char *
prs_tls_dup_pem (GTlsCertificate *certificate)
{
  char *pem = NULL;

  g_return_val_if_fail (G_IS_TLS_CERTIFICATE (certificate), NULL);

  g_object_get (certificate, "certificate-pem", &pem, NULL);
  return pem;
}
