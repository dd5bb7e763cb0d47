/* The C API from C: translates the sample shaders through the core functions and the
 * translator object, from several threads, with a binding callback, a message callback, the
 * option blocks and bad input; prints the reflection and the warnings for the Rust driver
 * (tests/c_program.rs) to compare with the Rust API's, and writes each module to
 * OUTDIR/<name>.spv for spirv-val.
 *
 * usage: api_test OUTDIR WARNINGS.dxbc FILE.dxbc...   (exit 0: every check passed)
 * WARNINGS.dxbc: a pixel shader without refactoringAllowed, with a mad, a read of cb0[5] past
 * its 2 declared vectors and a discard (the warnings test). */
#include "dxbc2spv.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond);      \
            failures++;                                                          \
        }                                                                        \
    } while (0)

typedef struct file {
    const char *path;
    const char *name; /* basename */
    unsigned char *bytes;
    size_t size;
    uint32_t *words; /* reference translation (NULL options) */
    size_t word_count;
} file;

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc(n > 0 ? (size_t)n : 1);
    if (bytes && fread(bytes, 1, (size_t)n, f) != (size_t)n) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return bytes;
}

static const char *basename_of(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* ---- core functions ---- */

static void test_core(file *files, int count, const char *outdir) {
    for (int i = 0; i < count; i++) {
        dxbc2spv_output out;
        int status = dxbc2spv_translate(files[i].bytes, files[i].size, NULL, &out);
        if (status != DXBC2SPV_OK) {
            fprintf(stderr, "FAIL %s: %s (%s)\n", files[i].name, out.error ? out.error : "?",
                    dxbc2spv_status_name(status));
            failures++;
            dxbc2spv_output_free(&out);
            continue;
        }
        CHECK(out.error == NULL);
        CHECK(out.spirv_words > 5 && out.spirv[0] == 0x07230203u);
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.spv", outdir, files[i].name);
        FILE *f = fopen(path, "wb");
        CHECK(f != NULL);
        if (f) {
            CHECK(fwrite(out.spirv, 4, out.spirv_words, f) == out.spirv_words);
            fclose(f);
        }
        /* keep a copy as the reference for the threads */
        files[i].word_count = out.spirv_words;
        files[i].words = malloc(out.spirv_words * 4);
        memcpy(files[i].words, out.spirv, out.spirv_words * 4);
        dxbc2spv_output_free(&out);
        CHECK(out.spirv == NULL && out.spirv_words == 0 && out.error == NULL);
        dxbc2spv_output_free(&out); /* twice is harmless */
    }
}

typedef struct messages {
    int errors;
    int with_offset;
    char text[512];
} messages;

static void on_message(void *user_data, const dxbc2spv_message *message) {
    messages *m = user_data;
    if (message->severity == DXBC2SPV_SEVERITY_ERROR) m->errors++;
    if (message->has_offset) m->with_offset++;
    snprintf(m->text, sizeof m->text, "%s", message->text);
}

static void test_errors(const file *f) {
    dxbc2spv_output out;
    /* NULL arguments */
    CHECK(dxbc2spv_translate(f->bytes, f->size, NULL, NULL) == DXBC2SPV_ERROR_INVALID_ARGUMENT);
    CHECK(dxbc2spv_translate(NULL, 10, NULL, &out) == DXBC2SPV_ERROR_INVALID_ARGUMENT);
    CHECK(out.spirv == NULL && out.error != NULL);
    dxbc2spv_output_free(&out);

    /* a container cut short: an error naming the byte offset, delivered as a message too */
    messages m = {0};
    dxbc2spv_message_callback mc = {DXBC2SPV_STRUCTURE_TYPE_MESSAGE_CALLBACK, NULL, on_message, &m};
    dxbc2spv_options options;
    CHECK(dxbc2spv_options_init(&options) == DXBC2SPV_OK);
    options.next = &mc;
    int status = dxbc2spv_translate(f->bytes, 40, &options, &out);
    CHECK(status == DXBC2SPV_ERROR_DECODE);
    CHECK(out.spirv == NULL && out.spirv_words == 0);
    CHECK(out.error != NULL && strstr(out.error, "at 0x") != NULL);
    CHECK(m.errors == 1 && m.with_offset == 1);
    CHECK(out.error != NULL && strcmp(m.text, out.error) == 0);
    printf("bad input: %s\n", out.error ? out.error : "(none)");
    dxbc2spv_output_free(&out);

    /* a corrupted checksum is refused, and accepted without verification */
    unsigned char *copy = malloc(f->size);
    memcpy(copy, f->bytes, f->size);
    copy[4] ^= 0xff;
    CHECK(dxbc2spv_translate(copy, f->size, NULL, &out) == DXBC2SPV_ERROR_DECODE);
    dxbc2spv_output_free(&out);
    options.next = NULL;
    options.flags &= ~DXBC2SPV_FLAG_VERIFY_CHECKSUM;
    CHECK(dxbc2spv_translate(copy, f->size, &options, &out) == DXBC2SPV_OK);
    dxbc2spv_output_free(&out);
    free(copy);

    /* unknown option values and block types are named */
    dxbc2spv_options_init(&options);
    options.target = 42;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_ERROR_INVALID_ARGUMENT);
    CHECK(out.error && strstr(out.error, "target = 42"));
    dxbc2spv_output_free(&out);
    dxbc2spv_options_init(&options);
    dxbc2spv_chain unknown = {999, NULL};
    options.next = &unknown;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_ERROR_INVALID_ARGUMENT);
    CHECK(out.error && strstr(out.error, "unknown stype 999"));
    dxbc2spv_output_free(&out);
}

/* ---- translator object and reflection ---- */

static void print_reflection(const char *name, const dxbc2spv_translator *t) {
    dxbc2spv_shader_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    CHECK(dxbc2spv_translator_shader_info(t, &info) == DXBC2SPV_OK);
    printf("INFO %s stage=%u wg=%u,%u,%u resources=%u tess=%u,%u,%u,%u,%u entry=%s\n", name,
           info.stage, info.workgroup_size[0], info.workgroup_size[1], info.workgroup_size[2],
           info.resource_count, info.tess_domain, info.tess_partitioning,
           info.tess_output_primitive, info.input_control_points, info.output_control_points,
           info.entry_point);
    for (uint32_t i = 0; i < info.resource_count; i++) {
        dxbc2spv_resource r;
        CHECK(dxbc2spv_translator_resource(t, i, &r) == DXBC2SPV_OK);
        printf("RES %s kind=%u space=%u first=%u count=%u set=%u binding=%u desc=%u\n", name,
               r.range.kind, r.range.space, r.range.first, r.range.count, r.target.set,
               r.target.binding, r.descriptor_type);
        printf("RUSAGE %s %u %#x\n", name, i, r.usage);
        CHECK(r.usage & DXBC2SPV_RESOURCE_USAGE_KNOWN);
        printf("READ %s %u %u\n", name, i, (r.usage & DXBC2SPV_RESOURCE_USAGE_READ) ? 1u : 0u);
    }
    for (uint32_t i = 0; i < info.message_count; i++) {
        dxbc2spv_message m;
        CHECK(dxbc2spv_translator_message(t, i, &m) == DXBC2SPV_OK);
        CHECK(m.severity == DXBC2SPV_SEVERITY_WARNING || m.severity == DXBC2SPV_SEVERITY_INFO);
        CHECK(m.status == 0 && m.text != NULL && m.kind != 0);
        printf("WARN %s %u %u %d %#x\n", name, m.kind, m.severity, (int)m.has_offset,
               m.has_offset ? m.offset : 0u);
    }
    dxbc2spv_message no_message;
    CHECK(dxbc2spv_translator_message(t, info.message_count, &no_message) ==
          DXBC2SPV_ERROR_NOT_AVAILABLE);
    dxbc2spv_buffer_fixup no_fixup;
    CHECK(info.buffer_fixup_count == 0 &&
          dxbc2spv_translator_buffer_fixup(t, 0, &no_fixup) == DXBC2SPV_ERROR_NOT_AVAILABLE);
    dxbc2spv_resource past;
    CHECK(dxbc2spv_translator_resource(t, info.resource_count, &past) ==
          DXBC2SPV_ERROR_NOT_AVAILABLE);
    const uint32_t *caps = NULL;
    size_t cap_count = 0;
    CHECK(dxbc2spv_translator_capabilities(t, &caps, &cap_count) == DXBC2SPV_OK);
    CHECK(cap_count == info.capability_count);
    int shader = 0;
    for (size_t i = 0; i < cap_count; i++) shader |= caps[i] == 1; /* Capability Shader */
    CHECK(shader);
    for (uint32_t i = 0; i < info.extension_count; i++)
        CHECK(dxbc2spv_translator_extension(t, i) != NULL);
    CHECK(dxbc2spv_translator_extension(t, info.extension_count) == NULL);
    uint32_t counts[3] = {info.input_count, info.output_count, info.patch_constant_count};
    for (uint32_t s = 0; s < 3; s++) {
        for (uint32_t i = 0; i < counts[s]; i++) {
            dxbc2spv_signature_element e;
            CHECK(dxbc2spv_translator_signature_element(t, s, i, &e) == DXBC2SPV_OK);
            printf("SIG %s %u %s%u reg=%u mask=%u sv=%u\n", name, s, e.semantic_name,
                   e.semantic_index, e.register_, e.mask, e.system_value);
        }
    }
    printf("USAGE %s %#x\n", name, info.usage);
}

static void test_translator(const file *files, int count) {
    dxbc2spv_translator *t = dxbc2spv_translator_create();
    CHECK(t != NULL);
    dxbc2spv_shader_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    CHECK(dxbc2spv_translator_shader_info(t, &info) == DXBC2SPV_ERROR_NOT_AVAILABLE);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < count; i++) {
            dxbc2spv_output out;
            CHECK(dxbc2spv_translator_translate(t, files[i].bytes, files[i].size, NULL, &out) ==
                  DXBC2SPV_OK);
            CHECK(out.spirv_words == files[i].word_count);
            CHECK(files[i].words &&
                  memcmp(out.spirv, files[i].words, out.spirv_words * 4) == 0);
            dxbc2spv_output_free(&out);
            if (round == 0) print_reflection(files[i].name, t);
        }
    }
    /* a failed translation leaves no reflection */
    dxbc2spv_output out;
    CHECK(dxbc2spv_translator_translate(t, files[0].bytes, 8, NULL, &out) != DXBC2SPV_OK);
    dxbc2spv_output_free(&out);
    CHECK(dxbc2spv_translator_shader_info(t, &info) == DXBC2SPV_ERROR_NOT_AVAILABLE);
    /* an older caller's smaller structure: only its bytes are written */
    CHECK(dxbc2spv_translator_translate(t, files[0].bytes, files[0].size, NULL, &out) == 0);
    dxbc2spv_output_free(&out);
    struct {
        dxbc2spv_shader_info info;
        uint32_t guard;
    } small;
    memset(&small, 0xab, sizeof small);
    small.info.size = 8; /* size and stage only */
    CHECK(dxbc2spv_translator_shader_info(t, &small.info) == DXBC2SPV_OK);
    CHECK(small.info.size == 8 && small.info.stage <= DXBC2SPV_STAGE_COMPUTE);
    CHECK(small.info.workgroup_size[0] == 0xababababu && small.guard == 0xababababu);
    dxbc2spv_translator_release_buffers(t);
    dxbc2spv_translator_destroy(t);
    dxbc2spv_translator_destroy(NULL);
    CHECK(dxbc2spv_translator_translate(NULL, files[0].bytes, files[0].size, NULL, &out) ==
          DXBC2SPV_ERROR_INVALID_ARGUMENT);
    dxbc2spv_output_free(&out);
}

/* ---- binding callback ---- */

typedef struct map_state {
    int calls;
    int refuse;
} map_state;

static int map_range(void *user_data, const dxbc2spv_register_range *range,
                     dxbc2spv_binding_target *target) {
    map_state *state = user_data;
    state->calls++;
    if (state->refuse) return 1;
    target->kind = DXBC2SPV_BINDING_DESCRIPTOR;
    target->set = 5;
    target->binding = range->kind * 100 + range->first;
    target->array_offset = 0;
    target->descriptor_count = range->count;
    return 0;
}

static void test_callback(const file *f) {
    map_state state = {0, 0};
    static const char key[] = "pipeline layout 1";
    dxbc2spv_binding_callback cb = {DXBC2SPV_STRUCTURE_TYPE_BINDING_CALLBACK, NULL, map_range,
                                    &state, key, sizeof key};
    dxbc2spv_options options;
    dxbc2spv_options_init(&options);
    options.next = &cb;
    dxbc2spv_translator *t = dxbc2spv_translator_create();
    dxbc2spv_output out;
    CHECK(dxbc2spv_translator_translate(t, f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    dxbc2spv_output_free(&out);
    dxbc2spv_shader_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    CHECK(dxbc2spv_translator_shader_info(t, &info) == DXBC2SPV_OK);
    CHECK(info.resource_count > 0 && state.calls >= (int)info.resource_count);
    for (uint32_t i = 0; i < info.resource_count; i++) {
        dxbc2spv_resource r;
        dxbc2spv_translator_resource(t, i, &r);
        CHECK(r.target.kind == DXBC2SPV_BINDING_DESCRIPTOR && r.target.set == 5);
        CHECK(r.target.binding == r.range.kind * 100 + r.range.first);
    }
    printf("callback: %d calls for %u resources\n", state.calls, info.resource_count);

    /* the fingerprint takes the callback's key; equal inputs and options give equal keys */
    uint8_t a[32], b[32], c[32];
    CHECK(dxbc2spv_fingerprint(f->bytes, f->size, &options, a) == DXBC2SPV_OK);
    CHECK(dxbc2spv_fingerprint(f->bytes, f->size, &options, b) == DXBC2SPV_OK);
    CHECK(memcmp(a, b, 32) == 0);
    cb.key_size = 4;
    CHECK(dxbc2spv_fingerprint(f->bytes, f->size, &options, c) == DXBC2SPV_OK);
    CHECK(memcmp(a, c, 32) != 0);
    cb.key = NULL;
    cb.key_size = 0;
    CHECK(dxbc2spv_fingerprint(f->bytes, f->size, &options, c) == DXBC2SPV_ERROR_INVALID_ARGUMENT);

    /* a range the callback refuses fails at its declaration */
    state.refuse = 1;
    CHECK(dxbc2spv_translator_translate(t, f->bytes, f->size, &options, &out) ==
          DXBC2SPV_ERROR_BINDING);
    CHECK(out.error && strstr(out.error, "at 0x") && strstr(out.error, "binding"));
    printf("refused: %s\n", out.error ? out.error : "(none)");
    dxbc2spv_output_free(&out);
    dxbc2spv_translator_destroy(t);
}

/* ---- threads ---- */

typedef struct job {
    const file *files;
    int count;
    int mismatches;
} job;

static void *worker(void *arg) {
    job *j = arg;
    dxbc2spv_translator *t = dxbc2spv_translator_create();
    for (int round = 0; round < 8; round++) {
        for (int i = 0; i < j->count; i++) {
            dxbc2spv_output out;
            int status = (round & 1)
                             ? dxbc2spv_translator_translate(t, j->files[i].bytes,
                                                             j->files[i].size, NULL, &out)
                             : dxbc2spv_translate(j->files[i].bytes, j->files[i].size, NULL, &out);
            if (status != DXBC2SPV_OK || out.spirv_words != j->files[i].word_count ||
                memcmp(out.spirv, j->files[i].words, out.spirv_words * 4) != 0)
                j->mismatches++;
            dxbc2spv_output_free(&out);
        }
    }
    dxbc2spv_translator_destroy(t);
    return NULL;
}

static void test_threads(const file *files, int count) {
    enum { THREADS = 4 };
    pthread_t threads[THREADS];
    job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (job){files, count, 0};
        CHECK(pthread_create(&threads[i], NULL, worker, &jobs[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(jobs[i].mismatches == 0);
    }
}

/* OpDecorate (opcode 71, 3 or more words) with decoration Index (32): how many, and the
   literal of the last one. */
static int count_index_decorations(const dxbc2spv_output *out, uint32_t *literal) {
    int n = 0;
    for (size_t i = 5; i < out->spirv_words;) {
        uint32_t op = out->spirv[i] & 0xffff, len = out->spirv[i] >> 16;
        if (len == 0) break;
        if (op == 71 && len >= 4 && i + 3 < out->spirv_words && out->spirv[i + 2] == 32) {
            n++;
            *literal = out->spirv[i + 3];
        }
        i += len;
    }
    return n;
}

/* The pipeline-state and class-instance blocks on a pixel shader writing o0 only. */
static void test_state_blocks(const file *f) {
    dxbc2spv_options options;
    dxbc2spv_options_init(&options);
    dxbc2spv_output out;
    uint32_t literal = 99;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    CHECK(count_index_decorations(&out, &literal) == 0);
    dxbc2spv_output_free(&out);

    /* D3D dual-source blending: o0 is source 0 of location 0 (Index 0). */
    dxbc2spv_pipeline_state state;
    CHECK(dxbc2spv_pipeline_state_init(&state) == DXBC2SPV_OK);
    CHECK(state.target_swizzles[3][3] == DXBC2SPV_COMPONENT_W && state.sample_count.value == 1);
    state.dual_source_blending = 1;
    options.next = &state;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    CHECK(count_index_decorations(&out, &literal) == 1 && literal == 0);
    dxbc2spv_output_free(&out);

    /* A component code past DXBC2SPV_COMPONENT_ONE is named. */
    state.target_swizzles[0][1] = 9;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) ==
          DXBC2SPV_ERROR_INVALID_ARGUMENT);
    CHECK(out.error && strstr(out.error, "pipeline_state.target_swizzles[0][1] = 9"));
    dxbc2spv_output_free(&out);

    /* Class instances (docs/runtime.md): the shader declares no interface slots, so slots
       without an instance change nothing, and an instance for slot 0 is an Invalid error
       naming the undeclared slot. */
    dxbc2spv_class_instance instances[2] = {{0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0}};
    dxbc2spv_class_instances bound = {DXBC2SPV_STRUCTURE_TYPE_CLASS_INSTANCES, NULL, instances, 2};
    options.next = &bound;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    CHECK(out.spirv_words == f->word_count &&
          memcmp(out.spirv, f->words, out.spirv_words * 4) == 0);
    dxbc2spv_output_free(&out);
    instances[0].present = 1;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_ERROR_INVALID);
    CHECK(out.error && strstr(out.error, "interface slot 0, which the shader does not declare"));
    dxbc2spv_output_free(&out);
    instances[1].present = 2;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) ==
          DXBC2SPV_ERROR_INVALID_ARGUMENT);
    CHECK(out.error && strstr(out.error, "class_instances.instances[1].present = 2"));
    dxbc2spv_output_free(&out);
}

/* ---- warnings ---- */

typedef struct warnings {
    int count, infos, strict, cbuffer, discard;
    int strict_names_mad;
    int text_has_offset;
} warnings;

static void on_warning(void *user_data, const dxbc2spv_message *m) {
    warnings *w = user_data;
    CHECK(m->severity != DXBC2SPV_SEVERITY_ERROR && m->status == 0);
    w->count++;
    if (m->severity == DXBC2SPV_SEVERITY_INFO) w->infos++;
    if (m->kind == DXBC2SPV_WARNING_STRICT_FLOAT_ORDER_NOT_KEPT) {
        w->strict++;
        w->strict_names_mad += m->instruction != NULL && strcmp(m->instruction, "mad") == 0;
    }
    if (m->kind == DXBC2SPV_WARNING_CONSTANT_BUFFER_READ_PAST_SIZE) w->cbuffer++;
    if (m->kind == DXBC2SPV_WARNING_DISCARD_ENDS_INVOCATION) w->discard++;
    w->text_has_offset += m->has_offset && strncmp(m->text, "at 0x", 5) == 0;
}

/* WARNINGS.dxbc through the message callback, with discard as demote (the default) and as
   OpKill; the translator keeps the same list; warnings leave the module as it is. */
static void test_warnings(const file *f) {
    warnings w = {0};
    dxbc2spv_message_callback mc = {DXBC2SPV_STRUCTURE_TYPE_MESSAGE_CALLBACK, NULL, on_warning,
                                    &w};
    dxbc2spv_options options;
    dxbc2spv_options_init(&options);
    dxbc2spv_output plain, out;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &plain) == DXBC2SPV_OK);
    options.next = &mc;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    CHECK(out.spirv_words == plain.spirv_words &&
          memcmp(out.spirv, plain.spirv, out.spirv_words * 4) == 0);
    dxbc2spv_output_free(&out);
    dxbc2spv_output_free(&plain);
    CHECK(w.count == 2 && w.strict == 1 && w.strict_names_mad == 1 && w.cbuffer == 1);
    CHECK(w.discard == 0 && w.infos == 0 && w.text_has_offset == 2);

    memset(&w, 0, sizeof w);
    options.flags &= ~DXBC2SPV_FLAG_DEMOTE_TO_HELPER;
    dxbc2spv_translator *t = dxbc2spv_translator_create();
    CHECK(dxbc2spv_translator_translate(t, f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    dxbc2spv_output_free(&out);
    CHECK(w.count == 3 && w.discard == 1);
    dxbc2spv_shader_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    CHECK(dxbc2spv_translator_shader_info(t, &info) == DXBC2SPV_OK);
    CHECK(info.message_count == 3);
    int discard = 0;
    for (uint32_t i = 0; i < info.message_count; i++) {
        dxbc2spv_message m;
        CHECK(dxbc2spv_translator_message(t, i, &m) == DXBC2SPV_OK);
        discard += m.kind == DXBC2SPV_WARNING_DISCARD_ENDS_INVOCATION &&
                   m.instruction != NULL && strcmp(m.instruction, "discard") == 0;
        printf("WARN %s %u %u %d %#x\n", f->name, m.kind, m.severity, (int)m.has_offset,
               m.has_offset ? m.offset : 0u);
    }
    CHECK(discard == 1);
    printf("warnings: %u\n", info.message_count);
    dxbc2spv_translator_destroy(t);
}

/* ---- option blocks: buffer descriptors, stage linking ---- */

/* OpDecorate (71) of decoration `decoration` with literal `value`: how many. */
static int count_decorations(const dxbc2spv_output *out, uint32_t decoration, uint32_t value) {
    int n = 0;
    for (size_t i = 5; i < out->spirv_words;) {
        uint32_t op = out->spirv[i] & 0xffff, len = out->spirv[i] >> 16;
        if (len == 0) break;
        if (op == 71 && len >= 4 && i + 3 < out->spirv_words && out->spirv[i + 2] == decoration &&
            out->spirv[i + 3] == value)
            n++;
        i += len;
    }
    return n;
}

/* The compute sample (a structured u0, stride 4) with raw UAVs as texel buffers and a 64-byte
   storage-buffer alignment: u0 is a storage texel buffer (VkDescriptorType 5) with one fix-up
   entry, the block at its init binding (set 0, binding 15). */
static void test_buffer_descriptors(const file *f, const char *outdir) {
    dxbc2spv_buffer_descriptors b;
    CHECK(dxbc2spv_buffer_descriptors_init(&b) == DXBC2SPV_OK);
    CHECK(b.fixup_block.set == 0 && b.fixup_block.binding == 15);
    b.storage_buffer_alignment = 64;
    dxbc2spv_options options;
    dxbc2spv_options_init(&options);
    options.next = &b;
    dxbc2spv_translator *t = dxbc2spv_translator_create();
    dxbc2spv_output out;
    CHECK(dxbc2spv_translator_translate(t, f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.fixup.spv", outdir, f->name);
    FILE *file = fopen(path, "wb");
    if (file) {
        CHECK(fwrite(out.spirv, 4, out.spirv_words, file) == out.spirv_words);
        fclose(file);
    }
    dxbc2spv_output_free(&out);
    dxbc2spv_shader_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    CHECK(dxbc2spv_translator_shader_info(t, &info) == DXBC2SPV_OK);
    CHECK(info.buffer_fixup_count == 1);
    CHECK(info.buffer_fixup_block.kind == DXBC2SPV_BINDING_DESCRIPTOR &&
          info.buffer_fixup_block.set == 0 && info.buffer_fixup_block.binding == 15);
    dxbc2spv_buffer_fixup fixup;
    CHECK(dxbc2spv_translator_buffer_fixup(t, 0, &fixup) == DXBC2SPV_OK);
    CHECK(fixup.kind == DXBC2SPV_RESOURCE_UAV && fixup.space == 0 && fixup.register_ == 0);
    CHECK(dxbc2spv_translator_buffer_fixup(t, 1, &fixup) == DXBC2SPV_ERROR_NOT_AVAILABLE);
    printf("fixups: %u (u%u at set %u binding %u)\n", info.buffer_fixup_count, fixup.register_,
           info.buffer_fixup_block.set, info.buffer_fixup_block.binding);

    /* raw and structured UAVs as storage texel buffers (no fix-up then: texel buffers are
       bound at any offset) */
    b.storage_buffer_alignment = 0;
    b.texel_raw_uav = 1;
    CHECK(dxbc2spv_translator_translate(t, f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    snprintf(path, sizeof path, "%s/%s.texel.spv", outdir, f->name);
    file = fopen(path, "wb");
    if (file) {
        CHECK(fwrite(out.spirv, 4, out.spirv_words, file) == out.spirv_words);
        fclose(file);
    }
    dxbc2spv_output_free(&out);
    dxbc2spv_resource r;
    CHECK(dxbc2spv_translator_resource(t, 0, &r) == DXBC2SPV_OK);
    CHECK(r.range.kind == DXBC2SPV_RESOURCE_UAV && r.descriptor_type == 5);
    CHECK(dxbc2spv_translator_shader_info(t, &info) == DXBC2SPV_OK);
    CHECK(info.buffer_fixup_count == 0);

    /* an alignment that is not a power of two is named */
    b.texel_raw_uav = 0;
    b.storage_buffer_alignment = 48;
    CHECK(dxbc2spv_translator_translate(t, f->bytes, f->size, &options, &out) ==
          DXBC2SPV_ERROR_INVALID_ARGUMENT);
    CHECK(out.error && strstr(out.error, "storage_buffer_alignment"));
    dxbc2spv_output_free(&out);
    dxbc2spv_translator_destroy(t);
}

/* The pixel sample (TEXCOORD0 in v1.xy) linked to a previous stage that writes TEXCOORD0 at
   register 3: with remapping by semantic the input reads location 3. */
static void test_stage_linking(const file *f) {
    dxbc2spv_semantic previous[2] = {{"SV_Position", 0, 0, 0xf, 0}, {"TEXCOORD", 0, 3, 0x3, 0}};
    dxbc2spv_stage_linking l;
    memset(&l, 0, sizeof l);
    l.stype = DXBC2SPV_STRUCTURE_TYPE_STAGE_LINKING;
    l.has_previous_outputs = 1;
    l.previous_outputs = previous;
    l.previous_output_count = 2;
    l.remap_by_semantic = 1;
    dxbc2spv_options options;
    dxbc2spv_options_init(&options);
    dxbc2spv_output out;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    CHECK(count_decorations(&out, 30, 3) == 0); /* Location 3 */
    dxbc2spv_output_free(&out);
    options.next = &l;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    CHECK(count_decorations(&out, 30, 3) == 1);
    dxbc2spv_output_free(&out);
    /* a geometry-input primitive D3D does not have is named */
    l.geometry_input = 5;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) ==
          DXBC2SPV_ERROR_INVALID_ARGUMENT);
    CHECK(out.error && strstr(out.error, "stage_linking.geometry_input = 5"));
    dxbc2spv_output_free(&out);
}

/* The Direct3D 9 blocks: all zero is the defaults (the same module as without them), a value
   in an unknown form is named. */
static void test_d3d9_blocks(const file *f) {
    dxbc2spv_d3d9_state st;
    memset(&st, 0, sizeof st);
    st.stype = DXBC2SPV_STRUCTURE_TYPE_D3D9_STATE;
    dxbc2spv_d3d9_options d9;
    memset(&d9, 0, sizeof d9);
    d9.stype = DXBC2SPV_STRUCTURE_TYPE_D3D9_OPTIONS;
    d9.next = &st;
    dxbc2spv_options options;
    dxbc2spv_options_init(&options);
    options.next = &d9;
    dxbc2spv_output out;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    CHECK(out.spirv_words == f->word_count &&
          memcmp(out.spirv, f->words, f->word_count * sizeof(uint32_t)) == 0);
    dxbc2spv_output_free(&out);
    st.fog_start.form = 7;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) ==
          DXBC2SPV_ERROR_INVALID_ARGUMENT);
    CHECK(out.error && strstr(out.error, "d3d9_state.fog_start.form = 7"));
    dxbc2spv_output_free(&out);
    st.fog_start.form = DXBC2SPV_STATE_SPEC;
    st.fog_start.id_or_offset = 4;
    CHECK(dxbc2spv_translate(f->bytes, f->size, &options, &out) == DXBC2SPV_OK);
    dxbc2spv_output_free(&out);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s OUTDIR WARNINGS.dxbc FILE.dxbc...\n", argv[0]);
        return 2;
    }
    printf("dxbc2spv %s, API %u, revision %u\n", dxbc2spv_version(), dxbc2spv_api_version(),
           dxbc2spv_revision());
    CHECK(dxbc2spv_api_version() == DXBC2SPV_API_VERSION);
    CHECK(dxbc2spv_revision() == DXBC2SPV_REVISION);
    CHECK(strcmp(dxbc2spv_status_name(DXBC2SPV_ERROR_DECODE), "DXBC2SPV_ERROR_DECODE") == 0);
    CHECK(dxbc2spv_options_init(NULL) == DXBC2SPV_ERROR_INVALID_ARGUMENT);
    dxbc2spv_output_free(NULL);

    file warning_shader = {argv[2], basename_of(argv[2]), NULL, 0, NULL, 0};
    warning_shader.bytes = read_file(argv[2], &warning_shader.size);
    if (!warning_shader.bytes) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    int count = argc - 3;
    file *files = calloc((size_t)count, sizeof *files);
    for (int i = 0; i < count; i++) {
        files[i].path = argv[i + 3];
        files[i].name = basename_of(argv[i + 3]);
        files[i].bytes = read_file(argv[i + 3], &files[i].size);
        if (!files[i].bytes) {
            fprintf(stderr, "cannot read %s\n", argv[i + 3]);
            return 2;
        }
    }
    test_core(files, count, argv[1]);
    test_errors(&files[0]);
    test_translator(files, count);
    /* the callback test wants a shader with resources: the first one that has some */
    test_callback(&files[count - 1]);
    test_state_blocks(&files[count - 1]);
    test_stage_linking(&files[count - 1]);
    test_d3d9_blocks(&files[count - 1]);
    /* the buffer-descriptor test wants the compute sample (a structured UAV) */
    for (int i = 0; i < count; i++)
        if (strncmp(files[i].name, "cs50_structured_tgsm", 20) == 0)
            test_buffer_descriptors(&files[i], argv[1]);
    test_warnings(&warning_shader);
    free(warning_shader.bytes);
    test_threads(files, count);
    for (int i = 0; i < count; i++) {
        free(files[i].bytes);
        free(files[i].words);
    }
    free(files);
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
}
