#include "src/core/records.h"

#include <stdlib.h>

void records_free_owned(struct smtop_record *rec)
{
	switch (rec->kind) {
	case SMTOP_REC_KERNEL:
		free((char *)rec->u.kernel.name);
		break;
	case SMTOP_REC_API:
		free((char *)rec->u.api.name);
		break;
	case SMTOP_REC_NVTX:
		free((char *)rec->u.nvtx.text);
		free((char *)rec->u.nvtx.domain);
		break;
	case SMTOP_REC_DEVICE:
		free((char *)rec->u.device.name);
		free((char *)rec->u.device.uuid);
		break;
	case SMTOP_REC_BLOCKS:
		free(rec->u.blocks.blocks);
		break;
	case SMTOP_REC_CHUNK:
		free(rec->u.chunk.data);
		break;
	case SMTOP_REC_REQUEST:
		free((char *)rec->u.request.label);
		break;
	default:
		break;
	}
}
