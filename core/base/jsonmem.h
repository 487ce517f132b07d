/* jsonmem.h - jansson's allocator, counting its failures (jsonmem.c): the
 * one record of "a document may be missing a part" that the store's commit
 * and the executor check, so the hundreds of json_object_set_new and
 * json_array_append_new calls that build a document need no check each. */
#ifndef RD_JSONMEM_H
#define RD_JSONMEM_H

/* Makes jansson allocate through jsonmem (malloc and free, counting each
 * allocation that fails).  Idempotent and cheap: the store and the
 * executor call it before they use jansson; a program may call it first. */
void jsonmem_install(void);

/* How many of jansson's allocations have failed in this process so far
 * (every thread).  A caller that takes it before building documents and
 * sees it grow since knows one of them may lack a field or an element. */
unsigned long jsonmem_failures(void);

#endif
