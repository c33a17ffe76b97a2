/* bench_meta.c: what a bench run writes beside its CSV so that the figures
 * describe themselves (the version and commit, the command line, the date,
 * the machine, the device and its software, the options and run counts, the
 * peers' versions), and the check, before the first product, that the CSV
 * and that file can be written. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h"

/* The name of the JSON beside csv: .csv replaced by .json, else .json added. */
static void meta_path(const char *csv, char *path, size_t len)
{
    size_t n = strlen(csv);
    int dot_csv = n > 4 && !strcmp(csv + n - 4, ".csv");
    snprintf(path, len, "%.*s.json", (int)(dot_csv ? n - 4 : n), csv);
}

int cli_check_output(const char *csv)
{
    char meta[4096];
    meta_path(csv, meta, sizeof meta);
    return cli_check_writable("bench", csv) || cli_check_writable("bench", meta) ? 2 : 0;
}

/* The CPU's model name from /proc/cpuinfo, or "". */
static void cpu_model(char *out, size_t len)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    out[0] = '\0';
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            char *v = strchr(line, ':') + 1;
            v += strspn(v, " \t");
            v[strcspn(v, "\n")] = '\0';
            snprintf(out, len, "%s", v);
            break;
        }
    if (f) fclose(f);
}

/* The entry of hsp_devices for a product's device description ("opencl:0 ...",
 * "cpu (a small product)"), by its name; NULL when none matches. */
static const hsp_device_info *device_entry(const char *described, hsp_device_info *list, int max)
{
    int count = 0;
    size_t n = strcspn(described, " ");
    if (!n || hsp_devices(list, max, &count) != HSP_OK) return NULL;
    for (int k = 0; k < count && k < max; k++)
        if (strlen(list[k].name) == n && !strncmp(list[k].name, described, n)) return &list[k];
    return NULL;
}

/* "key":"value", with a comma before it unless first. */
static void member(FILE *f, const char *key, const char *value, int first)
{
    fprintf(f, "%s\"%s\":", first ? "" : ",", key);
    cli_json_string(f, value);
}

/* The device member: what the run's products ran on. */
static void write_device(FILE *f, const char *described)
{
    hsp_device_info list[48];
    const hsp_device_info *d = device_entry(described, list, 48);
    fprintf(f, ",\"device\":{");
    member(f, "name", d ? d->name : "", 1);
    member(f, "ran_on", described, 0);
    member(f, "description", d ? d->description : "", 0);
    member(f, "memory", d ? d->memory : "", 0);
    member(f, "version", d ? d->version : "", 0);
    fprintf(f, "}");
}

/* The peers member: each peer of the suite, its version and what became of it. */
static void write_peers(FILE *f, const cli_peers *p)
{
    int first = 1;
    fprintf(f, ",\"peers\":{");
    for (int k = 0; k < CLI_NPEERS; k++) {
        if (!p->status[k][0]) continue;
        fprintf(f, "%s\"%s\":{", first ? "" : ",", cli_peer_name[k]);
        member(f, "version", p->version[k], 1);
        member(f, "status", p->status[k], 0);
        fprintf(f, "}");
        first = 0;
    }
    fprintf(f, "}");
}

int cli_write_meta(const char *csv, const cli_args *a, const cli_peers *p, const cli_run_info *run)
{
    char path[4096], model[256], date[32];
    time_t now = time(NULL);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    meta_path(csv, path, sizeof path);
    FILE *f = fopen(path, "w");
    if (!f) return perror(path), 1;
    cpu_model(model, sizeof model);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(f, "{");
    member(f, "hspgemm_version", PACKAGE_VERSION, 1);
    member(f, "commit", cli_commit(), 0);
    member(f, "command", a->command, 0);
    member(f, "date", date, 0);
    member(f, "suite", run->suite, 0);
    member(f, "cpu_model", model, 0);
    fprintf(f, ",\"cores\":%d,\"memory_bytes\":%lld", (int)sysconf(_SC_NPROCESSORS_ONLN),
            pages > 0 && page > 0 ? (long long)pages * page : 0LL);
    write_device(f, run->device);
    fprintf(f, ",\"threads\":%d", a->lib.threads);
    member(f, "precision", a->precision == HSP_DOUBLE ? "double" : "float", 0);
    fprintf(f, ",\"methods\":[\"%s\",\"%s\",\"%s\"]", hsp_method_name(a->lib.method[0]),
            hsp_method_name(a->lib.method[1]), hsp_method_name(a->lib.method[2]));
    member(f, "profile", run->profile ? run->profile : "", 0);
    member(f, "grow", hsp_grow_name(a->lib.grow), 0);
    fprintf(f, ",\"resident\":%s,\"unsorted\":%s,\"deterministic\":%s,\"repeat\":%d,\"spread_bound\":%g",
            a->resident ? "true" : "false", a->lib.unsorted ? "true" : "false", a->lib.deterministic ? "true" : "false",
            a->repeat, CLI_SPREAD_BOUND);
    fprintf(f, ",\"amg\":{\"strength\":\"%s\",\"theta\":%.17g,\"omega\":%.17g,\"levels\":%d,\"coarse\":%d,"
            "\"float_levels\":%s,\"aggregation\":\"%s\",\"coarsening\":\"%s\"}", cli_strength_name(a->amg.strength),
            a->amg.theta, a->amg.omega, a->amg.max_levels, a->amg.coarse_size, a->amg.float_levels ? "true" : "false",
            cli_aggregation_name(a->amg.aggregation), cli_coarsening_name(a->amg.coarsening));
    write_peers(f, p);
    fprintf(f, ",\"complete\":%s", run->complete ? "true" : "false");
    member(f, "error", run->error, 0);
    fprintf(f, "}\n");
    if (fclose(f) != 0) return perror(path), 1;
    return 0;
}
