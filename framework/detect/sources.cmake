# sources of framework/detect are added here
